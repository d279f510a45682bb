// Command cilk5 measures the work overhead of fj on the programs of the
// Cilk-5 paper (package cilk5): for every program, its serial elision
// (TS) and every fj variant on a pool of one worker (T1) and of two (T2),
// in interleaved rounds, each run checked. It prints, per variant, the
// medians with their min–max spread, c1 = T1/TS beside Cilk-5's published
// c1, TS/T2 (both ratios are medians over rounds of the ratio within a
// round), and the allocations per fork; it writes the raw runs to
// docs/data/cilk5.txt (Go benchmark format: benchstat -col /impl reads
// it) and draws docs/work-overhead.svg.
//
// From the bench directory:
//
//	go run ./cmd/cilk5                    # 5 rounds, default sizes (a few minutes)
//	go run ./cmd/cilk5 -quick             # small sizes, 1 round, writes nothing
//	go run ./cmd/cilk5 -programs=fib,heat -rounds=9
//	go run ./cmd/cilk5 -in ../docs/data/cilk5.txt -markdown   # redraw from the data, no runs
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/forkjoin/fj/bench/cilk5"
	"github.com/forkjoin/fj/pool"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("cilk5: ")
	rounds := flag.Int("rounds", 5, "rounds; each runs every program's serial elision and every variant on 1 and 2 workers once")
	programs := flag.String("programs", "", "comma-separated programs to run (default all): "+strings.Join(programNames(), ","))
	quick := flag.Bool("quick", false, "small sizes and 1 round, writing no files unless -out or -svg is given: a quick check")
	out := flag.String("out", "../docs/data/cilk5.txt", "file to write the raw runs to (empty: none)")
	svg := flag.String("svg", "../docs/work-overhead.svg", "file to draw the chart of c1 in (empty: none)")
	in := flag.String("in", "", "read the runs from this file (written by -out) instead of running")
	md := flag.Bool("markdown", false, "print the table in Markdown too")
	d := cilk5.DefaultSizes()
	s := &d
	flag.IntVar(&s.Fib, "fib", s.Fib, "fib(n)")
	flag.IntVar(&s.KnapsackItems, "knapsack", s.KnapsackItems, "knapsack items")
	flag.Uint64Var(&s.KnapsackSeed, "knapsack-seed", s.KnapsackSeed, "seed of the knapsack items")
	flag.IntVar(&s.Queens, "queens", s.Queens, "queens board side")
	flag.IntVar(&s.Sort, "sort", s.Sort, "int64s to sort")
	flag.IntVar(&s.MatMul, "matmul", s.MatMul, "matrix side (32 times a power of two)")
	flag.IntVar(&s.Heat, "heat", s.Heat, "heat grid side")
	flag.IntVar(&s.HeatSteps, "heat-steps", s.HeatSteps, "heat time steps")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var ds *dataset
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			log.Fatal(err)
		}
		ds, err = parse(f)
		f.Close()
		if err != nil {
			log.Fatalf("%s: %v", *in, err)
		}
		if !set["out"] {
			*out = ""
		}
	} else {
		if *quick {
			applyQuick(s, set)
			if !set["rounds"] {
				*rounds = 1
			}
			if !set["out"] {
				*out = ""
			}
			if !set["svg"] {
				*svg = ""
			}
		}
		if *rounds < 1 {
			log.Fatalf("-rounds=%d: need at least 1", *rounds)
		}
		progs, err := selectPrograms(cilk5.Suite(*s), *programs)
		if err != nil {
			log.Fatal(err)
		}
		ds = measure(progs, *rounds)
	}
	if *out != "" {
		if err := writeFile(*out, ds.write); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(os.Stderr, "wrote", *out)
	}
	rows := summarize(ds)
	printTable(os.Stdout, ds, rows)
	if *md {
		fmt.Println()
		printMarkdown(os.Stdout, rows)
	}
	if *svg != "" {
		if err := writeFile(*svg, func(w io.Writer) error {
			_, err := io.WriteString(w, chart(ds, rows))
			return err
		}); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(os.Stderr, "wrote", *svg)
	}
}

func programNames() []string {
	var names []string
	for _, p := range cilk5.Suite(tinySizes) {
		names = append(names, p.Name)
	}
	return names
}

// tinySizes make a suite that is cheap to build, for its names.
var tinySizes = cilk5.Sizes{Fib: 2, KnapsackItems: 2, Queens: 1, Sort: 1, MatMul: 32, Heat: 3, HeatSteps: 1}

// applyQuick sets every size not given on the command line to its quick
// value.
func applyQuick(s *cilk5.Sizes, set map[string]bool) {
	q := cilk5.QuickSizes()
	for _, f := range []struct {
		flag     string
		dst, src *int
	}{
		{"fib", &s.Fib, &q.Fib}, {"knapsack", &s.KnapsackItems, &q.KnapsackItems},
		{"queens", &s.Queens, &q.Queens}, {"sort", &s.Sort, &q.Sort},
		{"matmul", &s.MatMul, &q.MatMul}, {"heat", &s.Heat, &q.Heat},
		{"heat-steps", &s.HeatSteps, &q.HeatSteps},
	} {
		if !set[f.flag] {
			*f.dst = *f.src
		}
	}
	if !set["knapsack-seed"] {
		s.KnapsackSeed = q.KnapsackSeed
	}
}

func selectPrograms(all []*cilk5.Program, list string) ([]*cilk5.Program, error) {
	if list == "" {
		return all, nil
	}
	var sel []*cilk5.Program
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(all, func(p *cilk5.Program) bool { return p.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("-programs: no program %q; the programs are %s", name, strings.Join(programNames(), ","))
		}
		sel = append(sel, all[i])
	}
	return sel, nil
}

// A dataset is the runs of one measurement, as written to and read from
// the raw data file.
type dataset struct {
	header []string          // "key: value" lines
	inputs map[string]string // program -> its input
	series []*series         // in the order first run
}

// A series is the runs of one program in one implementation.
type series struct {
	program, impl string // impl: "serial", or a variant's Impl
	ns, allocs    []float64
	forks         int64 // tasks forked per run; 0: not counted
}

func (ds *dataset) get(program, impl string) *series {
	for _, s := range ds.series {
		if s.program == program && s.impl == impl {
			return s
		}
	}
	s := &series{program: program, impl: impl}
	ds.series = append(ds.series, s)
	return s
}

func measure(progs []*cilk5.Program, rounds int) *dataset {
	ds := &dataset{inputs: map[string]string{}}
	ds.header = append(ds.header,
		"goos: "+runtime.GOOS,
		"goarch: "+runtime.GOARCH,
		"cpu: "+cpuName(),
		fmt.Sprintf("cores: %d", runtime.NumCPU()),
		fmt.Sprintf("gomaxprocs: %d", runtime.GOMAXPROCS(0)),
		"go: "+runtime.Version(),
		fmt.Sprintf("rounds: %d", rounds),
		"date: "+time.Now().UTC().Format(time.DateOnly),
		"loadavg-before: "+loadAvg())
	pools := []*pool.Pool{pool.New(pool.WithWorkers(1)), pool.New(pool.WithWorkers(2))}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, prog := range progs {
		ds.inputs[prog.Name] = prog.Input
	}
	for r := 1; r <= rounds; r++ {
		for _, prog := range progs {
			var line strings.Builder
			fmt.Fprintf(&line, "round %d/%d %s:", r, rounds, prog.Name)
			timed := func(impl string, forks int64, f func()) {
				ns, allocs := runOnce(prog, f)
				s := ds.get(prog.Name, impl)
				s.ns = append(s.ns, ns)
				s.allocs = append(s.allocs, allocs)
				s.forks = forks
				fmt.Fprintf(&line, " %s %s", impl, fmtDuration(ns))
			}
			timed("serial", 0, prog.Serial)
			for _, v := range prog.Variants {
				for _, p := range pools {
					forks := v.Forks
					if p.Workers() > 1 {
						forks = 0 // a search may take another path there
					}
					timed(v.Impl(p.Workers()), forks, func() { p.Run(v.Run) })
				}
			}
			fmt.Fprintln(os.Stderr, line.String())
		}
	}
	ds.header = append(ds.header, "loadavg-after: "+loadAvg())
	return ds
}

// runOnce runs f once on a collected heap, between prog's Setup and
// Check, and returns its time in ns and the allocations it made.
func runOnce(prog *cilk5.Program, f func()) (ns, allocs float64) {
	prog.Setup()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err := prog.Check(); err != nil {
		log.Fatalf("%s: %v", prog.Name, err)
	}
	return float64(elapsed.Nanoseconds()), float64(after.Mallocs - before.Mallocs)
}

func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown"
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// The raw data file: the header as "key: value" lines, each program's
// input as a comment, then one benchmark line per run:
//
//	BenchmarkCilk5/fib/impl=args-1w 1 712345678 ns/op 9227464 allocs/op 14930351 forks/op
const benchPrefix = "BenchmarkCilk5/"

func (ds *dataset) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# cmd/cilk5: the Cilk-5 programs, serial elision (impl=serial) and fj on 1 and 2 workers;")
	fmt.Fprintln(bw, "# one line per run, in the order run (rounds interleaved). benchstat -col /impl reads it.")
	for _, h := range ds.header {
		fmt.Fprintln(bw, h)
	}
	var progs []string
	for _, s := range ds.series {
		if !slices.Contains(progs, s.program) {
			progs = append(progs, s.program)
		}
	}
	for _, p := range progs {
		fmt.Fprintf(bw, "# input %s: %s\n", p, ds.inputs[p])
	}
	rounds := 0
	for _, s := range ds.series {
		rounds = max(rounds, len(s.ns))
	}
	for r := range rounds {
		for _, s := range ds.series {
			if r >= len(s.ns) {
				continue
			}
			fmt.Fprintf(bw, "%s%s/impl=%s 1 %.0f ns/op %.0f allocs/op", benchPrefix, s.program, s.impl, s.ns[r], s.allocs[r])
			if s.forks > 0 {
				fmt.Fprintf(bw, " %d forks/op", s.forks)
			}
			fmt.Fprintln(bw)
		}
	}
	return bw.Flush()
}

func parse(r io.Reader) (*dataset, error) {
	ds := &dataset{inputs: map[string]string{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# input "):
			if p, in, ok := strings.Cut(strings.TrimPrefix(line, "# input "), ": "); ok {
				ds.inputs[p] = in
			}
		case strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, benchPrefix):
			f := strings.Fields(line)
			name, impl, ok := strings.Cut(strings.TrimPrefix(f[0], benchPrefix), "/impl=")
			if !ok || len(f) < 4 || len(f)%2 != 0 {
				return nil, fmt.Errorf("line %d: not a run: %q", n, line)
			}
			s := ds.get(name, impl)
			for i := 2; i+1 < len(f); i += 2 {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", n, err)
				}
				switch f[i+1] {
				case "ns/op":
					s.ns = append(s.ns, v)
				case "allocs/op":
					s.allocs = append(s.allocs, v)
				case "forks/op":
					s.forks = int64(v)
				}
			}
		case strings.Contains(line, ": "):
			ds.header = append(ds.header, line)
		default:
			return nil, fmt.Errorf("line %d: not a header or a run: %q", n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ds.series) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	return ds, nil
}

// A stat is a median with the smallest and largest value.
type stat struct{ med, lo, hi float64 }

func summary(xs []float64) stat {
	if len(xs) == 0 {
		return stat{math.NaN(), math.NaN(), math.NaN()}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{m, s[0], s[len(s)-1]}
}

// pairedRatio returns the median over rounds of num/den in the same
// round: runs of one round are seconds apart, so a slow drift of the
// machine's load, which would skew a ratio of medians, cancels.
func pairedRatio(num, den []float64) float64 {
	n := min(len(num), len(den))
	if n == 0 {
		return math.NaN()
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = num[i] / den[i]
	}
	return summary(r).med
}

// A row is one fj variant of one program, against the serial elision.
type row struct {
	program, input, variant string
	ts, t1, t2              stat
	c1, paper, speedup      float64 // T1/TS and TS/T2 (pairedRatio), Cilk-5's c1
	allocsPerFork           float64 // NaN where forks are not counted
}

func summarize(ds *dataset) []row {
	var rows []row
	for _, s := range ds.series {
		variant, ok := strings.CutSuffix(s.impl, "-1w")
		if !ok {
			continue
		}
		serial, two := ds.get(s.program, "serial"), ds.get(s.program, variant+"-2w")
		r := row{program: s.program, input: ds.inputs[s.program], variant: variant,
			ts: summary(serial.ns), t1: summary(s.ns), t2: summary(two.ns), allocsPerFork: math.NaN()}
		r.c1 = pairedRatio(s.ns, serial.ns)
		r.speedup = pairedRatio(serial.ns, two.ns)
		r.paper, _ = cilk5.PaperC1(s.program)
		if s.forks > 0 {
			r.allocsPerFork = summary(s.allocs).med / float64(s.forks)
		}
		rows = append(rows, r)
	}
	return rows
}

// variantTitles say how each variant forks.
var variantTitles = map[string]string{
	"args":       "JoinArgs",
	"join":       "Join",
	"fork":       "Fork + Future.Join",
	"spawn":      "Spawn + Task.Join",
	"joinall":    "JoinAll",
	"joinreduce": "JoinReduce",
	"fj":         "parallel.Do",
}

func variantTitle(v string) string {
	if t, ok := variantTitles[v]; ok {
		return t
	}
	return v
}

func fmtDuration(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "—"
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	default:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
}

// fmtStat formats a stat in ms: "51.2 (50.1–53.0)".
func fmtStat(s stat) string {
	if math.IsNaN(s.med) {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s)", fmtMs(s.med), fmtMs(s.lo), fmtMs(s.hi))
}

func fmtMs(ns float64) string {
	ms := ns / 1e6
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f", ms)
	default:
		return fmt.Sprintf("%.2f", ms)
	}
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", x)
}

func fmtAllocs(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.2f", x)
}

func printTable(w io.Writer, ds *dataset, rows []row) {
	for _, h := range ds.header {
		fmt.Fprintln(w, h)
	}
	fmt.Fprintln(w, "times in ms: median (min–max); c1 fj and TS/T2: median over rounds of the ratio within a round")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tinput\tfj form\tTS\tT1\tT2\tc1 fj\tc1 Cilk-5\tTS/T2\tallocs/fork\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.program, r.input, variantTitle(r.variant),
			fmtStat(r.ts), fmtStat(r.t1), fmtStat(r.t2), fmtRatio(r.c1), fmtRatio(r.paper), fmtRatio(r.speedup), fmtAllocs(r.allocsPerFork))
	}
	tw.Flush()
}

func printMarkdown(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| program | input | fj form | TS (ms) | T1 (ms) | T2 (ms) | c1 fj | c1 Cilk-5 | TS/T2 | allocs/fork |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | **%s** | %s | %s | %s |\n", r.program, r.input, variantTitle(r.variant),
			fmtStat(r.ts), fmtStat(r.t1), fmtStat(r.t2), fmtRatio(r.c1), fmtRatio(r.paper), fmtRatio(r.speedup), fmtAllocs(r.allocsPerFork))
	}
}

func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
