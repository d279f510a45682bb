// Command charts draws the SVG charts of fj's README from benchmark
// output: the cost of a fork with fj and with its peers, and the speedup
// of the main workloads against the number of workers.
//
// From the bench directory:
//
//	go run ./cmd/charts            # reads ../docs/data/peers.txt, writes ../docs/*.svg
//	go run ./cmd/charts -markdown  # also prints README's "How fj compares" table
//
// It draws only what the input holds: each point is the median of the
// runs of one benchmark at one GOMAXPROCS, and the worker counts on the
// speedup axis are those that were measured (measure.sh's CPUS).
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
		"fork-cost.svg": forkCost(res),
		"speedup.svg":   speedup(res),
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

// The columns of the comparison table, and the implementations that go
// in each: every workload's own names for its baseline and its peers.
var columns = []struct {
	title string
	impls []string
}{
	{"sequential", []string{"sequential", "loop", "slices"}},
	{"goroutines", []string{"goroutine", "goroutines"}},
	{"errgroup", []string{"errgroup"}},
	{"conc", []string{"conc", "conc-iter"}},
	{"pond", []string{"pond"}},
	{"fj", []string{"fj"}},
}

var rowTitles = []struct{ bench, title string }{
	{"Fork/fine", "fib(27), a fork at every level"},
	{"Fork/coarse", "fib(35), forks above n = 20"},
	{"Sort10M", "sort 10M random int64"},
	{"Reduce50M", "sum of 50M float64"},
	{"Mandelbrot", "Mandelbrot 1024x1024, a task per row"},
}

// markdown returns the comparison table at the largest GOMAXPROCS
// measured: the median time of every implementation, and fj's speedup
// over the sequential code and over the fastest peer.
func markdown(res results) string {
	var b strings.Builder
	procs := 0
	for k := range res {
		procs = max(procs, k.procs)
	}
	fmt.Fprintf(&b, "| workload (%s, median of %d runs) |", workers(procs), res.runs("Fork/coarse"))
	for _, c := range columns {
		fmt.Fprintf(&b, " %s |", c.title)
	}
	b.WriteString(" fj vs sequential | fj vs fastest peer |\n|---|")
	b.WriteString(strings.Repeat("---:|", len(columns)+2) + "\n")
	for _, row := range rowTitles {
		fmt.Fprintf(&b, "| %s |", row.title)
		var seq, fj, best float64
		for _, c := range columns {
			cell := "—"
			for _, impl := range c.impls {
				if v, _, ok := res.median(key{row.bench, impl, procs}, "ns/op"); ok {
					cell = fmtDuration(v)
					switch c.title {
					case "sequential":
						seq = v
					case "fj":
						fj = v
						cell = "**" + cell + "**"
					default:
						if best == 0 || v < best {
							best = v
						}
					}
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		ratio := func(base float64) string {
			if base == 0 || fj == 0 {
				return "—"
			}
			return fmt.Sprintf("%.2fx", base/fj)
		}
		fmt.Fprintf(&b, " %s | %s |\n", ratio(seq), ratio(best))
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
	"slices":     "#8c564b",
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

// panel is one workload of the speedup chart.
type panel struct {
	bench, title, baseline string
	impls                  []string
}

var panels = []panel{
	{"Fork/coarse", "fib(35), forks above n = 20", "sequential", []string{"goroutine", "errgroup", "conc", "fj"}},
	{"Sort10M", "Sort, 10M int64", "slices", []string{"fj"}},
	{"Reduce50M", "Sum of 50M float64", "loop", []string{"goroutines", "conc-iter", "pond", "fj"}},
	{"Mandelbrot", "Mandelbrot 1024², by rows", "loop", []string{"errgroup", "conc-iter", "pond", "fj"}},
}

// speedup draws, per workload, the speedup of each implementation over
// the sequential baseline at one worker, against the worker count.
func speedup(res results) string {
	const (
		panelW, panelH = 360, 230
		cols           = 2
		padL, padT     = 50, 40 // inside a panel: room for the axis and title
		plotW, plotH   = 160, 150
		top            = 70
	)
	rows := (len(panels) + cols - 1) / cols
	width, height := cols*panelW+20, top+rows*panelH+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="12">`+"\n", width, height, width, height, font)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="17" font-weight="bold">Speedup over sequential code against workers</text>`+"\n")
	var allProcs []int
	for _, pn := range panels {
		for _, p := range res.procs(pn.bench) {
			if !slices.Contains(allProcs, p) {
				allProcs = append(allProcs, p)
			}
		}
	}
	slices.Sort(allProcs)
	fmt.Fprintf(&b, `<text x="16" y="48" fill="#444">median of %d runs per point; measured at %s workers (GOMAXPROCS)%s; higher is better</text>`+"\n",
		res.runs("Sort10M"), joinInts(allProcs), onCores(res))
	for n, pn := range panels {
		x0 := 10 + (n%cols)*panelW
		y0 := top + (n/cols)*panelH
		procs := res.procs(pn.bench)
		base, _, ok := res.median(key{pn.bench, pn.baseline, 1}, "ns/op")
		if !ok || len(procs) == 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d">%s: not measured</text>`+"\n", x0+padL, y0+padT, esc(pn.title))
			continue
		}
		// The y axis runs from 0 to the largest of the ideal speedup and
		// the measured ones, so that a super-linear point still fits.
		maxS := float64(slices.Max(procs))
		for _, impl := range pn.impls {
			for _, p := range procs {
				if v, _, ok := res.median(key{pn.bench, impl, p}, "ns/op"); ok {
					maxS = max(maxS, base/v)
				}
			}
		}
		maxS = math.Ceil(maxS*2) / 2
		px := func(p int) float64 {
			if len(procs) == 1 {
				return float64(x0+padL) + plotW/2
			}
			i := slices.Index(procs, p)
			return float64(x0+padL) + float64(i)/float64(len(procs)-1)*plotW
		}
		py := func(s float64) float64 { return float64(y0+padT+plotH) - s/maxS*plotH }
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold" font-size="13">%s</text>`+"\n", x0+padL-30, y0+padT-18, esc(pn.title))
		// Axes, grid and the baseline at 1.
		for s := 0.0; s <= maxS+1e-9; s += 0.5 {
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`+"\n", x0+padL, py(s), x0+padL+plotW, py(s))
			if s == math.Trunc(s) {
				fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#555">%g×</text>`+"\n", x0+padL-6, py(s)+4, s)
			}
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888" stroke-dasharray="4 3"/>`+"\n", x0+padL, py(1), x0+padL+plotW, py(1))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" fill="#888" font-size="10">%s</text>`+"\n", x0+padL+4, py(1)-4, esc(pn.baseline))
		for _, p := range procs {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%d</text>`+"\n", px(p), y0+padT+plotH+16, p)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555" font-size="11">workers</text>`+"\n", float64(x0+padL)+plotW/2, y0+padT+plotH+32)
		// One line per implementation, fj last so that it is drawn on top.
		for i, impl := range pn.impls {
			var pts []string
			for _, p := range procs {
				if v, _, ok := res.median(key{pn.bench, impl, p}, "ns/op"); ok {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p), py(base/v)))
				}
			}
			if len(pts) == 0 {
				continue
			}
			c, sw := colour[impl], 2.0
			if impl == "fj" {
				sw = 3
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.0f"/>`+"\n", strings.Join(pts, " "), c, sw)
			for _, pt := range pts {
				xy := strings.Split(pt, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3.5" fill="%s"/>`+"\n", xy[0], xy[1], c)
			}
			// Legend, right of the plot, with the speedup at the most workers.
			last := procs[len(procs)-1]
			label := impl
			if v, _, ok := res.median(key{pn.bench, impl, last}, "ns/op"); ok {
				label = fmt.Sprintf("%s %.2f×", impl, base/v)
			}
			ly := y0 + padT + 4 + i*16
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/>`+"\n", x0+padL+plotW+24, ly, c)
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11"%s>%s</text>`+"\n", x0+padL+plotW+38, ly+9,
				map[bool]string{true: ` font-weight="bold"`, false: ""}[impl == "fj"], esc(label))
		}
	}
	if len(allProcs) > 0 {
		fmt.Fprintf(&b, `<text x="16" y="%d" fill="#666" font-size="11">Legend: speedup at %d workers. bench/measure.sh; go run ./cmd/charts (fj/bench).</text>`+"\n", height-14, slices.Max(allProcs))
	}
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
