// Command charts draws the SVG charts of docs/peers.md from benchmark
// output: the cost of a fork with fj and with its peers, the speedup of
// every workload against the number of workers, and fj's work overhead
// (its time on one worker over the sequential code's).
//
// From the bench directory:
//
//	go run ./cmd/charts            # reads ../docs/data/peers.txt, writes ../docs/*.svg
//	go run ./cmd/charts -markdown  # also prints the tables of docs/peers.md
//
// It draws only what the input holds: each point is the median of the
// runs of one benchmark at one GOMAXPROCS, and the worker counts shown
// are those that were measured (measure.sh's CPUS). Every ratio, in the
// tables and the charts alike, divides two medians measured at the same
// GOMAXPROCS and is printed with two decimals, so that a chart's label
// and the table's cell are the same number.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("charts: ")
	in := flag.String("in", "../docs/data/peers.txt", "go test -bench output to read")
	out := flag.String("out", "../docs", "directory to write the SVG files to")
	md := flag.Bool("markdown", false, "print the comparison table, in Markdown, on stdout")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	res, err := parse(f)
	if err != nil {
		log.Fatalf("%s: %v", *in, err)
	}
	for name, svg := range map[string]string{
		"fork-cost.svg":      forkCost(res),
		"speedup.svg":        speedup(res),
		"peers-overhead.svg": overhead(res),
	} {
		path := filepath.Join(*out, name)
		if err := os.WriteFile(path, []byte(svg), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(os.Stderr, "wrote", path)
	}
	if *md {
		fmt.Print(markdown(res))
	}
}

// A table of the comparison: its rows (benchmark and title) and its
// columns (title, and the implementations that go in each: every
// workload's own names for its peers). The first column is the
// sequential baseline (see baselines).
type table struct {
	rows []struct{ bench, title string }
	cols []column
	// parts adds the columns that split fj's speedup into the
	// algorithm's share (fj on 1 worker against the baseline on 1) and
	// the workers' (fj on the most workers against fj on 1).
	parts bool
}

type column struct {
	title string
	impls []string
}

var loops = table{
	rows: []struct{ bench, title string }{
		{"Fork/fine", "fib(27), a fork at every level"},
		{"Fork/coarse", "fib(35), forks above n = 20"},
		{"Reduce50M", "sum of 50M float64"},
		{"Mandelbrot", "Mandelbrot 1024x1024, a task per row"},
	},
	cols: []column{
		{"sequential", nil},
		{"goroutines", []string{"goroutine", "goroutines"}},
		{"errgroup", []string{"errgroup"}},
		{"conc", []string{"conc", "conc-iter"}},
		{"pond", []string{"pond"}},
		{"pargo", []string{"pargo"}},
		{"fj", []string{"fj"}},
	},
}

var sorts = table{
	rows: []struct{ bench, title string }{
		{"Sort10M", "Sort, 10M random int64"},
		{"SortFunc4M", "SortFunc, 4M 32-byte records"},
		{"SortStableFunc4M", "SortStableFunc, 4M 32-byte records"},
		{"SortByKey4M", "SortByKey, 4M records by int64 key"},
	},
	cols: []column{
		{"slices", nil},
		{"sorty", []string{"sorty"}},
		{"pargo", []string{"pargo"}},
		{"parsort", []string{"parsort"}},
		{"twotwotwo/sorts", []string{"twotwotwo"}},
		{"fj", []string{"fj"}},
	},
	parts: true,
}

// baselines names each workload's sequential implementation.
var baselines = map[string]string{
	"Fork/fine": "sequential", "Fork/coarse": "sequential",
	"Reduce50M": "loop", "Mandelbrot": "loop",
	"Sort10M": "slices", "SortFunc4M": "slices", "SortStableFunc4M": "slices", "SortByKey4M": "slices",
}

// maxProcs returns the largest GOMAXPROCS in the input.
func (res results) maxProcs() int {
	procs := 0
	for k := range res {
		procs = max(procs, k.procs)
	}
	return procs
}

// ratio formats a/b as docs/peers.md's tables and the charts' labels print it.
func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// markdown returns the comparison tables at the largest GOMAXPROCS
// measured: the median time of every implementation, and fj's speedup
// over the sequential code and over the fastest peer; for the sorts,
// also the two parts of fj's speedup, and SortByKey against fj's own
// SortFunc.
func markdown(res results) string {
	var b strings.Builder
	procs := res.maxProcs()
	for i, t := range []table{loops, sorts} {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "| workload (%s, median of %d runs) |", workers(procs), res.runs(t.rows[0].bench))
		for _, c := range t.cols {
			fmt.Fprintf(&b, " %s |", c.title)
		}
		extra := []string{"fj vs sequential", "fj vs fastest peer"}
		if t.parts {
			extra = []string{"fj, 1 worker vs slices", "fj, " + workers(procs) + " vs 1", "fj vs slices", "fj vs fastest peer"}
		}
		b.WriteString(" " + strings.Join(extra, " | ") + " |\n|---|")
		b.WriteString(strings.Repeat("---:|", len(t.cols)+len(extra)) + "\n")
		for _, row := range t.rows {
			fmt.Fprintf(&b, "| %s |", row.title)
			var seq, fj, best float64
			for ci, c := range t.cols {
				cell := "—"
				impls := c.impls
				if ci == 0 {
					impls = []string{baselines[row.bench]}
				}
				for _, impl := range impls {
					if v, _, ok := res.median(key{row.bench, impl, procs}, "ns/op"); ok {
						cell = fmtDuration(v)
						switch {
						case ci == 0:
							seq = v
						case c.title == "fj":
							fj = v
							cell = "**" + cell + "**"
						case best == 0 || v < best:
							best = v
						}
						break
					}
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			if t.parts {
				seq1, _, _ := res.median(key{row.bench, baselines[row.bench], 1}, "ns/op")
				fj1, _, _ := res.median(key{row.bench, "fj", 1}, "ns/op")
				fmt.Fprintf(&b, " %s | %s |", ratio(seq1, fj1), ratio(fj1, fj))
			}
			fmt.Fprintf(&b, " %s | %s |\n", ratio(seq, fj), ratio(best, fj))
		}
	}
	if fj, _, ok := res.median(key{"SortByKey4M", "fj", procs}, "ns/op"); ok {
		if sf, _, ok := res.median(key{"SortByKey4M", "fj-SortFunc", procs}, "ns/op"); ok {
			fmt.Fprintf(&b, "\nSortByKey against fj's SortFunc on the same records, %s: %s against %s, %s.\n",
				workers(procs), fmtDuration(fj), fmtDuration(sf), ratio(sf, fj))
		}
	}
	return b.String()
}

// fmtDuration formats nanoseconds with three significant digits.
func fmtDuration(ns float64) string {
	switch {
	case ns >= 1e9:
		return strconv.FormatFloat(ns/1e9, 'f', 2, 64) + " s"
	case ns >= 1e6:
		return fmtNum(ns/1e6) + " ms"
	case ns >= 1e3:
		return fmtNum(ns/1e3) + " µs"
	}
	return fmtNum(ns) + " ns"
}

// key names the runs of one implementation of one benchmark at one
// GOMAXPROCS.
type key struct {
	bench string // e.g. "Fork/fine"
	impl  string // e.g. "fj"
	procs int
}

// results holds every measured value, by key and unit ("ns/op", ...),
// and the configuration lines ("cores: 2") of the input under "".
type results map[key]map[string][]float64

// config returns the value of the input's configuration line name, or "".
func (res results) config(name string) string {
	if vs := res[key{}][name]; len(vs) > 0 {
		return strconv.FormatFloat(vs[len(vs)-1], 'f', -1, 64)
	}
	return ""
}

var procsSuffix = regexp.MustCompile(`-(\d+)$`)

// parse reads the benchmark lines of go test -bench output: name,
// iterations, then value-unit pairs. Other lines are skipped.
func parse(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "cores:" {
			if v, err := strconv.ParseFloat(fields[1], 64); err == nil {
				if res[key{}] == nil {
					res[key{}] = map[string][]float64{}
				}
				res[key{}]["cores"] = append(res[key{}]["cores"], v)
			}
			continue
		}
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
			continue
		}
		name := strings.TrimPrefix(fields[0], "Benchmark")
		procs := 1 // go test leaves the suffix out at GOMAXPROCS 1
		if m := procsSuffix.FindStringSubmatch(name); m != nil {
			procs, _ = strconv.Atoi(m[1])
			name = name[:len(name)-len(m[0])]
		}
		i := strings.LastIndex(name, "/impl=")
		if i < 0 {
			continue
		}
		k := key{name[:i], name[i+len("/impl="):], procs}
		if res[k] == nil {
			res[k] = map[string][]float64{}
		}
		for j := 2; j+1 < len(fields); j += 2 {
			v, err := strconv.ParseFloat(fields[j], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			res[k][fields[j+1]] = append(res[k][fields[j+1]], v)
		}
	}
	return res, sc.Err()
}

// median returns the median of the unit's values for k, and how many
// there were; ok is false when there were none.
func (res results) median(k key, unit string) (m float64, n int, ok bool) {
	vs := slices.Clone(res[k][unit])
	if len(vs) == 0 {
		return 0, 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], len(vs), true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, len(vs), true
}

// procs returns the GOMAXPROCS values measured for bench, in order.
func (res results) procs(bench string) []int {
	var ps []int
	for k := range res {
		if k.bench == bench && !slices.Contains(ps, k.procs) {
			ps = append(ps, k.procs)
		}
	}
	slices.Sort(ps)
	return ps
}

// runs returns the fewest runs behind any point of bench, for captions.
func (res results) runs(bench string) int {
	n := math.MaxInt
	for k, units := range res {
		if k.bench == bench {
			n = min(n, len(units["ns/op"]))
		}
	}
	if n == math.MaxInt {
		return 0
	}
	return n
}

// The look of the charts: fj stands out, the peers are greys and muted
// colours, always the same one per implementation.
var colour = map[string]string{
	"fj":         "#d62728",
	"goroutine":  "#7f7f7f",
	"goroutines": "#7f7f7f",
	"errgroup":   "#1f77b4",
	"conc":       "#2ca02c",
	"conc-iter":  "#2ca02c",
	"pond":       "#9467bd",
	"pargo":      "#bcbd22",
	"sorty":      "#17becf",
	"parsort":    "#e377c2",
	"twotwotwo":  "#ff7f0e",
	"slices":     "#8c564b",
	// fj's SortFunc beside its SortByKey: fj's colour, lighter.
	"fj-SortFunc": "#f2a09f",
}

const font = `font-family="Helvetica, Arial, sans-serif"`

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// forkCost draws ns/fork of BenchmarkFork/fine: horizontal bars, one
// group per implementation, one bar per worker count.
func forkCost(res results) string {
	const bench = "Fork/fine"
	impls := []string{"goroutine", "errgroup", "conc", "fj"}
	procs := res.procs(bench)
	var maxV float64
	for _, impl := range impls {
		for _, p := range procs {
			if v, _, ok := res.median(key{bench, impl, p}, "ns/fork"); ok {
				maxV = max(maxV, v)
			}
		}
	}
	if maxV == 0 {
		log.Fatalf("no ns/fork for %s in the input", bench)
	}
	const (
		width, left, right, top = 760, 110, 170, 78
		barH, gap               = 18, 14
	)
	plotW := float64(width - left - right)
	height := top + len(impls)*(len(procs)*barH+gap) + 50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="13">`+"\n", width, height, width, height, font)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="17" font-weight="bold">The cost of a fork: fib(27), forked at every level</text>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="48" fill="#444">ns per fork (317,810 forks), median of %d runs; shorter is better</text>`+"\n", res.runs(bench))
	y := top
	for _, impl := range impls {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-weight="%s">%s</text>`+"\n",
			left-10, y+len(procs)*barH/2+5, map[bool]string{true: "bold", false: "normal"}[impl == "fj"], esc(impl))
		for i, p := range procs {
			v, _, ok := res.median(key{bench, impl, p}, "ns/fork")
			if !ok {
				continue
			}
			w := math.Max(1, v/maxV*plotW)
			fill := colour[impl]
			opacity := 1.0
			if i < len(procs)-1 {
				opacity = 0.45 // fewer workers: lighter
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="%.2f"/>`+"\n", left, y+i*barH, w, barH-3, fill, opacity)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#222">%s ns · %s</text>`+"\n", float64(left)+w+6, y+i*barH+barH-7, fmtNum(v), workers(p))
		}
		y += len(procs)*barH + gap
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`+"\n", left, top-6, left, y-gap+4)
	fmt.Fprintf(&b, `<text x="16" y="%d" fill="#666" font-size="11">bench/measure.sh; go run ./cmd/charts (fj/bench). Lighter bars: fewer workers (GOMAXPROCS).</text>`+"\n", height-16)
	b.WriteString("</svg>\n")
	return b.String()
}

func workers(p int) string {
	if p == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", p)
}

func fmtNum(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// panel is one workload of the speedup chart: fj first, then the other
// implementations, each against the workload's sequential baseline.
type panel struct {
	bench, title string
	impls        []string
}

var panels = []panel{
	{"Fork/coarse", "fib(35), forks above n = 20", []string{"fj", "goroutine", "errgroup", "conc"}},
	{"Reduce50M", "Sum of 50M float64", []string{"fj", "goroutines", "conc-iter", "pond", "pargo"}},
	{"Mandelbrot", "Mandelbrot 1024², a task per row", []string{"fj", "errgroup", "conc-iter", "pond", "pargo"}},
	{"Sort10M", "Sort, 10M int64", []string{"fj", "sorty", "pargo", "parsort", "twotwotwo"}},
	{"SortFunc4M", "SortFunc, 4M 32-byte records", []string{"fj", "sorty", "pargo", "parsort"}},
	{"SortStableFunc4M", "SortStableFunc, 4M records", []string{"fj", "pargo", "parsort"}},
	{"SortByKey4M", "SortByKey, 4M records (stable)", []string{"fj", "fj-SortFunc", "twotwotwo"}},
}

// label names an implementation in the charts.
func label(impl string) string {
	switch impl {
	case "twotwotwo":
		return "twotwotwo/sorts"
	case "fj-SortFunc":
		return "fj SortFunc"
	}
	return impl
}

// speedup draws, per workload, the speedup of each implementation over
// the sequential baseline measured at the same GOMAXPROCS, as horizontal
// bars: one per worker count measured, the lighter for fewer workers,
// each with its value at its end. The dashed lines mark the sequential
// code (1x) and the number of workers measured.
func speedup(res results) string {
	const (
		width, cols          = 980, 2
		panelW               = width / cols
		nameW, valueW, padR  = 118, 128, 14
		barH, implGap, headH = 13, 7, 40
		top                  = 74
	)
	plotW := float64(panelW - nameW - valueW - padR)
	var allProcs []int
	for _, pn := range panels {
		for _, p := range res.procs(pn.bench) {
			if !slices.Contains(allProcs, p) {
				allProcs = append(allProcs, p)
			}
		}
	}
	slices.Sort(allProcs)
	// Each panel's height, from the implementations measured in it.
	heights := make([]int, len(panels))
	for i, pn := range panels {
		heights[i] = headH + len(pn.impls)*(len(res.procs(pn.bench))*barH+implGap) + 24
	}
	rowY := []int{top}
	for r := 0; r*cols < len(panels); r++ {
		h := 0
		for c := 0; c < cols && r*cols+c < len(panels); c++ {
			h = max(h, heights[r*cols+c])
		}
		rowY = append(rowY, rowY[r]+h)
	}
	height := rowY[len(rowY)-1] + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="11">`+"\n", width, height, width, height, font)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="17" font-weight="bold">Speedup over sequential code, by workers</text>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="48" fill="#444" font-size="12">sequential time / time, medians of %d runs, both at the same GOMAXPROCS; measured at %s workers%s; longer is better</text>`+"\n",
		res.runs("Sort10M"), joinInts(allProcs), onCores(res))
	for n, pn := range panels {
		x0 := (n % cols) * panelW
		y0 := rowY[n/cols]
		procs := res.procs(pn.bench)
		base := baselines[pn.bench]
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold" font-size="13">%s</text>`+"\n", x0+16, y0+14, esc(pn.title))
		if len(procs) == 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666">not measured</text>`+"\n", x0+16, y0+32)
			continue
		}
		// The x axis runs from 0 to the largest of the measured speedups
		// and the most workers, rounded up to a whole number.
		maxS := float64(slices.Max(procs))
		for _, impl := range pn.impls {
			for _, p := range procs {
				if s, ok := res.speedup(pn.bench, base, impl, p); ok {
					maxS = max(maxS, s)
				}
			}
		}
		maxS = math.Ceil(maxS)
		px := func(s float64) float64 { return float64(x0+nameW) + s/maxS*plotW }
		plotTop, plotBottom := y0+headH-8, y0+heights[n]-24
		// Gridlines at every whole speedup, labelled under the plot (every
		// second or fifth one on a long axis); the 1x line (the
		// sequential code) and the ideal (the most workers) dashed.
		step := 1.0
		switch {
		case maxS > 12:
			step = 5
		case maxS > 6:
			step = 2
		}
		for s := 0.0; s <= maxS; s++ {
			stroke, dash := "#eee", ""
			if s == 1 || s == float64(slices.Max(procs)) {
				stroke, dash = "#999", ` stroke-dasharray="4 3"`
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"%s/>`+"\n", px(s), plotTop, px(s), plotBottom, stroke, dash)
			if math.Mod(s, step) == 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#666" font-size="10">%g×</text>`+"\n", px(s), plotBottom+12, s)
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666" font-size="10">1× = %s; dashed: 1× and %d×</text>`+"\n", x0+16, y0+28, esc(base), slices.Max(procs))
		y := y0 + headH
		for _, impl := range pn.impls {
			c := colour[impl]
			weight := "normal"
			if impl == "fj" {
				weight = "bold"
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-weight="%s">%s</text>`+"\n", x0+nameW-8, y+len(procs)*barH/2+4, weight, esc(label(impl)))
			for i, p := range procs {
				s, ok := res.speedup(pn.bench, base, impl, p)
				if !ok {
					continue
				}
				opacity := 1.0
				if i < len(procs)-1 {
					opacity = 0.45 // fewer workers: lighter
				}
				w := math.Max(1, px(s)-float64(x0+nameW))
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="%.2f"/>`+"\n", x0+nameW, y+i*barH, w, barH-2, c, opacity)
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#222" font-size="10">%s · %s</text>`+"\n", px(maxS)+6, y+i*barH+barH-3, strings.Replace(ratioOf(s), "x", "×", 1), workers(p))
			}
			y += len(procs)*barH + implGap
		}
	}
	fmt.Fprintf(&b, `<text x="16" y="%d" fill="#666" font-size="11">Lighter bars: fewer workers (GOMAXPROCS). bench/measure.sh; go run ./cmd/charts (fj/bench).</text>`+"\n", height-12)
	b.WriteString("</svg>\n")
	return b.String()
}

// speedup returns the median time of the baseline over that of impl,
// both at GOMAXPROCS procs.
func (res results) speedup(bench, base, impl string, procs int) (float64, bool) {
	s, _, ok1 := res.median(key{bench, base, procs}, "ns/op")
	v, _, ok2 := res.median(key{bench, impl, procs}, "ns/op")
	if !ok1 || !ok2 || v == 0 {
		return 0, false
	}
	return s / v, true
}

// ratioOf formats a ratio already divided as ratio does.
func ratioOf(r float64) string { return fmt.Sprintf("%.2fx", r) }

// overhead draws fj's work overhead per workload: the median time of fj
// on one worker over the sequential baseline's, on a log scale from 1,
// so that a bar to the left means fj on one worker beats the sequential
// code (a better algorithm) and a bar to the right is the cost of
// forking when nobody steals.
func overhead(res results) string {
	type bar struct {
		title string
		v     float64
	}
	var bars []bar
	for _, row := range append(slices.Clone(loops.rows), sorts.rows...) {
		if r, ok := res.speedup(row.bench, baselines[row.bench], "fj", 1); ok {
			bars = append(bars, bar{row.title, 1 / r})
		}
	}
	const (
		width, left, right, top = 860, 270, 40, 84
		barH, gap               = 18, 8
	)
	lo, hi := 1.0, 1.0
	for _, br := range bars {
		lo, hi = min(lo, br.v), max(hi, br.v)
	}
	// Whole decades around the values: the axis is log10.
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi == lo {
		hi = lo * 10
	}
	plotW := float64(width - left - right)
	px := func(v float64) float64 {
		return float64(left) + (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*plotW
	}
	height := top + len(bars)*(barH+gap) + 56
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="12">`+"\n", width, height, width, height, font)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="17" font-weight="bold">Work overhead: fj on one worker over the sequential code</text>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="48" fill="#444">T1 / TS, medians of %d runs at GOMAXPROCS 1; log scale; left of 1: faster than sequential, right: the cost of forking</text>`+"\n", res.runs("Sort10M"))
	if len(bars) == 0 {
		fmt.Fprintf(&b, `<text x="16" y="%d">not measured</text>`+"\n", top)
	}
	// Ticks: 1, 2 and 5 times every power of ten in range.
	for d := lo; d <= hi*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v > hi*1.0001 {
				break
			}
			stroke := "#eee"
			if v == 1 {
				stroke = "#666"
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", px(v), top-8, px(v), top+len(bars)*(barH+gap), stroke)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555" font-size="11">%s</text>`+"\n", px(v), top+len(bars)*(barH+gap)+16, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	y := top
	for _, br := range bars {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-10, y+barH-5, esc(br.title))
		x1, x2 := px(1), px(br.v)
		fill := colour["fj"]
		if br.v < 1 {
			fill = "#2ca02c" // faster than the sequential code on one worker
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", math.Min(x1, x2), y, math.Max(1, math.Abs(x2-x1)), barH, fill)
		// The value on the side away from the 1 line, so that it never
		// meets the bar or the line.
		if br.v >= 1 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#222">%s</text>`+"\n", math.Max(x1, x2)+6, y+barH-5, ratioOf(br.v))
		} else {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="end" fill="#222">%s</text>`+"\n", x2-6, y+barH-5, ratioOf(br.v))
		}
		y += barH + gap
	}
	fmt.Fprintf(&b, `<text x="16" y="%d" fill="#666" font-size="11">TS: fib without forks, a plain loop, the slices sort (SortByKey: SortStableFunc). bench/measure.sh; go run ./cmd/charts.</text>`+"\n", height-14)
	b.WriteString("</svg>\n")
	return b.String()
}

// onCores says how many cores the input was measured on, if it says.
func onCores(res results) string {
	if c := res.config("cores"); c != "" {
		return " on " + c + " cores"
	}
	return ""
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	switch len(s) {
	case 0:
		return "no"
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
