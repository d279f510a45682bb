// Command showcase runs fj on seven workloads and prints, for each, the
// time of the sequential code, of fj, the speedup, and what a goroutine
// per task costs where that comparison means something. Every time is the
// median of -runs runs, the sequential, fj and goroutine versions taking
// turns, so that one disturbed run does not decide a row; beside it is
// the spread of the runs (fastest–slowest). Before the workloads and
// after each of them it checks how much of the machine it gets
// (GOMAXPROCS goroutines spinning at once against one alone), shows it
// beside each row, and warns when other programs use so much of the
// machine that the speedups cannot be trusted.
//
//	go run ./examples/showcase [-workers N] [-runs N] [-small] [-stats]
//	                           [-png file | -pngtemp] [-trace file] [-cpuprofile file]
//
// It writes the Mandelbrot image only when asked: to the file -png names,
// or, with -pngtemp, to a new file in the temporary directory whose name
// it prints (a fixed name there would be overwritten by another run, or
// another user's). Every line it prints fits 100 columns.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

var (
	workers    = flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	runs       = flag.Int("runs", 5, "runs per workload; each time shown is their median, beside their spread")
	small      = flag.Bool("small", false, "small sizes (a quick check, not a measurement)")
	showStats  = flag.Bool("stats", false, "print the pool's counters after each workload")
	pngPath    = flag.String("png", "", "write the Mandelbrot image to this file")
	pngTemp    = flag.Bool("pngtemp", false, "write the Mandelbrot image to a new temporary file, and print its name")
	tracePath  = flag.String("trace", "", "write a runtime/trace execution trace to this file")
	cpuProfile = flag.String("cpuprofile", "", "write a CPU profile to this file")
)

// size picks the full or the -small size.
func size(full, little int) int {
	if *small {
		return little
	}
	return full
}

// result is one row of the table: the times of every run.
type result struct {
	name      string
	seq, fj   []time.Duration
	goroutine []time.Duration // empty: not measured
	// fj1 holds the times of fj on a pool of one worker, for the sorts,
	// whose speedup is partly a better algorithm; empty: not measured.
	fj1 []time.Duration
}

// amount formats a count of elements for a workload's name: 10M, 100k.
func amount(n int) string {
	if n >= 1_000_000 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dk", n/1000)
}

// median returns the median of ds, which is not empty.
func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	if len(ds)%2 == 0 {
		return (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	return ds[len(ds)/2]
}

// progress tells whether to print progress lines: only to a terminal,
// where they are overwritten; in a file or a pipe they would be noise.
var progress = func() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}()

// timed runs f and returns how long it took, printing a progress line
// on a terminal while it runs longer than a second.
func timed(label string, f func()) time.Duration {
	if !progress {
		start := time.Now()
		f()
		return time.Since(start)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprintf(os.Stderr, "\r%60s\r", "")
				}
				return
			case <-tick.C:
				shown = true
				fmt.Fprintf(os.Stderr, "\r  %s ... %ds", label, int(time.Since(start).Seconds()))
			}
		}
	}()
	f()
	d := time.Since(start)
	close(done)
	wg.Wait()
	return d
}

// timedFJ times f, run on p inside a pool.Region named after the workload:
// with -trace, go tool trace shows every workload as a task, and the
// regions of its pieces on each worker.
func timedFJ(p *pool.Pool, label, region string, f func(r pool.Runner)) time.Duration {
	return timed(label, func() {
		pool.Region(p, region, func(w *pool.Worker) { f(w) })
	})
}

func main() {
	flag.Parse()
	if *runs < 1 || flag.NArg() > 0 || (*pngPath != "" && *pngTemp) {
		flag.Usage()
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		check(err)
		check(trace.Start(f))
		defer trace.Stop()
	}

	p := pool.New(pool.WithWorkers(*workers), pool.WithName("showcase"))
	defer p.Close()
	fmt.Printf("fj showcase: %d workers, GOMAXPROCS %d, %d CPUs, %s/%s, %s\n",
		p.Workers(), runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Printf("each time is the median (fastest–slowest) of %d runs\n", *runs)
	spinIters := calibrate()
	first := checkMachine(spinIters)
	fmt.Printf("machine check:\n  %s\n\n", first)
	if first.busy() {
		fmt.Print(first.warning())
		fmt.Println()
	}

	// The machine is checked again after every workload: a row is only
	// as trustworthy as the machine was on both sides of it.
	var results []result
	checks := []machine{first}
	for _, w := range []func(*pool.Pool) result{fibFine, fibCut, quicksortJoin, sortInts, reduceSum, mandelbrot, treeWalk} {
		before := p.Stats()
		r := w(p)
		results = append(results, r)
		checks = append(checks, checkMachine(spinIters))
		if *showStats {
			fmt.Printf("%s:\n%s\n", r.name, p.Stats().Sub(before))
		}
	}

	// Two tables, so that each fits 100 columns: the times and speedups
	// of every workload, then fj against a goroutine per task where that
	// was measured.
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tsequential\tfj\tspeedup\tcores free\t")
	var busyRows []string
	worst := first
	for i, r := range results {
		m := checks[i]
		if checks[i+1].ratio > m.ratio {
			m = checks[i+1]
		}
		if m.ratio > worst.ratio {
			worst = m
		}
		free := fmt.Sprintf("%.1f", m.free())
		if m.busy() {
			free += " BUSY"
			busyRows = append(busyRows, r.name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", r.name, spread(r.seq), spread(r.fj), ratios(r.seq, r.fj, 2), free)
	}
	tw.Flush()
	fmt.Println()
	fmt.Fprintln(tw, "workload\tgoroutine per task\tfj\tfj vs goroutines\t")
	for _, r := range results {
		if len(r.goroutine) > 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s faster\t\n", r.name, spread(r.goroutine), spread(r.fj), ratios(r.goroutine, r.fj, 1))
		}
	}
	tw.Flush()
	for _, r := range results {
		if len(r.fj1) > 0 && p.Workers() > 1 {
			others := fmt.Sprintf("the other %d workers", p.Workers()-1)
			if p.Workers() == 2 {
				others = "the second worker"
			}
			fmt.Printf("\n%s: the speedup %s is the product of\n"+
				"  %s from the algorithm: against slices.Sort, parallel.Sort on 1 worker\n"+
				"        takes %s (a partition without branches that the CPU would\n"+
				"        mispredict), and\n"+
				"  %s from %s: %d workers against 1.\n",
				r.name, ratios(r.seq, r.fj, 2), ratios(r.seq, r.fj1, 2), spread(r.fj1),
				ratios(r.fj1, r.fj, 2), others, p.Workers())
		}
	}
	fmt.Printf("\nmachine check after the runs:\n  %s\n", checks[len(checks)-1])
	if imageFile != "" {
		fmt.Printf("Mandelbrot image: %s\n", imageFile)
	}
	fmt.Println("speedup = sequential / fj, the medians' ratio (lowest–highest ratio within a run); the part")
	fmt.Println("that comes from running on several workers cannot exceed the number of cores. Fine-")
	fmt.Println("grained forks (fib, a fork per call) cost more than the work they split: that row is")
	fmt.Println("about what a fork costs compared with a goroutine, not about speed. cores free: the")
	fmt.Printf("worse of the machine checks made before and after the row's runs, of %d cores.\n", first.n)
	if len(busyRows) > 0 {
		fmt.Printf("\n%d of %d rows were measured while the machine was busy.\n", len(busyRows), len(results))
		fmt.Print(worst.warning())
	}
}

// spread formats the median of ds and, in the same unit, the fastest and
// the slowest run: "212ms (205–230)".
func spread(ds []time.Duration) string {
	m := median(ds)
	unit, suffix := time.Second, "s"
	switch {
	case m < time.Millisecond:
		unit, suffix = time.Microsecond, "µs"
	case m < time.Second:
		unit, suffix = time.Millisecond, "ms"
	}
	f := func(d time.Duration) string { return sig3(float64(d) / float64(unit)) }
	if len(ds) == 1 {
		return f(m) + suffix
	}
	return fmt.Sprintf("%s%s (%s–%s)", f(m), suffix, f(slices.Min(ds)), f(slices.Max(ds)))
}

// ratios formats median(a) / median(b), the ratio of the two columns,
// and beside it the lowest and the highest ratio a[i]/b[i] of one run
// (the versions took turns in each run), with the given decimals:
// "1.96x (1.90–2.01)".
func ratios(a, b []time.Duration, decimals int) string {
	rs := make([]float64, len(a))
	for i := range a {
		rs[i] = a[i].Seconds() / b[i].Seconds()
	}
	f := func(x float64) string {
		if s := strconv.FormatFloat(x, 'f', decimals, 64); len(s) <= 4 {
			return s
		}
		return sig3(x) // at most four characters, whatever the load did
	}
	m := median(a).Seconds() / median(b).Seconds()
	if len(rs) == 1 {
		return f(m) + "x"
	}
	return fmt.Sprintf("%sx (%s–%s)", f(m), f(slices.Min(rs)), f(slices.Max(rs)))
}

// sig3 formats x with three significant digits (at least the units), in
// at most four characters: from 10,000 on, in thousands (k), millions (M)
// and so on. A table cell is then as wide whatever the figures, and the
// tables fit 100 columns on a busy machine too, where one slow run of a
// spread can be 10 or 100 times its median (examples_test.go).
func sig3(x float64) string {
	if x >= 9999.5 && !math.IsInf(x, 1) { // +Inf: a run that took no time, printed as it is
		for _, suffix := range []string{"k", "M", "G", "T"} {
			x /= 1000
			if x < 999.5 || suffix == "T" {
				return strconv.FormatFloat(x, 'f', 0, 64) + suffix
			}
		}
	}
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// machine is what checkMachine measured: how much longer n goroutines
// spinning at once take than one alone. On a machine with n cores free
// the ratio is about 1; each other program that keeps a core busy adds
// about 1/n to it.
type machine struct {
	n     int
	ratio float64
}

// busyRatio is the ratio above which the speedups cannot be trusted: the
// program got less than about 80% of the cores it asked for.
const busyRatio = 1.25

func (m machine) busy() bool { return m.ratio > busyRatio }

func (m machine) String() string {
	state := "free"
	if m.busy() {
		state = "BUSY"
	}
	// At most 100 columns with the line's indent, whatever the figures.
	return fmt.Sprintf("%d goroutines spinning together took %sx one's time: %.1f of %d cores free (%s)",
		m.n, sig3(m.ratio), m.free(), m.n, state)
}

// free estimates how many of the n cores the program gets.
func (m machine) free() float64 { return min(float64(m.n), float64(m.n)/m.ratio) }

func (m machine) warning() string {
	return fmt.Sprintf("WARNING: this machine is busy: other programs use the CPU, and this one gets about\n"+
		"%.1f of its %d cores (or they are not independent cores). The times are longer and the\n"+
		"speedups lower than on a quiet machine, and they cannot be trusted; the spreads show how\n"+
		"much the runs varied. Stop other programs and run the showcase again.\n", m.free(), m.n)
}

// calibrate returns how many steps of spin take about 20 ms on this
// machine (a token amount with -small).
func calibrate() int {
	iters := 1 << 16
	for !*small {
		start := time.Now()
		spin(iters)
		if time.Since(start) >= 20*time.Millisecond {
			break
		}
		iters *= 2
	}
	return iters
}

// checkMachine times iters steps of spin on one goroutine and on
// GOMAXPROCS goroutines at once (median of three tries each).
func checkMachine(iters int) machine {
	n := runtime.GOMAXPROCS(0)
	var one, all []time.Duration
	for range 3 {
		start := time.Now()
		spin(iters)
		one = append(one, time.Since(start))
		start = time.Now()
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() { defer wg.Done(); spin(iters) }()
		}
		wg.Wait()
		all = append(all, time.Since(start))
	}
	return machine{n: n, ratio: median(all).Seconds() / median(one).Seconds()}
}

var spun atomic.Uint64

// spin does iters steps of a xorshift generator, work that stays in
// registers: it measures the cores, not the memory.
func spin(iters int) {
	x := uint64(88172645463325252)
	for range iters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	spun.Add(x)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func must(ok bool, what string) {
	if !ok {
		panic("wrong result: " + what)
	}
}

// --- fib ---

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

func fibFJ(w *pool.Worker, n, cut int) int {
	if n < cut {
		return fibSeq(n)
	}
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibFJ(w, n-1, cut) },
		func(w *pool.Worker) int { return fibFJ(w, n-2, cut) })
	return a + b
}

func fibGo(n int) int {
	if n < 2 {
		return n
	}
	var wg sync.WaitGroup
	var b int
	wg.Add(1)
	go func() { defer wg.Done(); b = fibGo(n - 2) }()
	a := fibGo(n - 1)
	wg.Wait()
	return a + b
}

func fibFine(p *pool.Pool) result {
	n := size(27, 16)
	want := fibSeq(n)
	r := result{name: fmt.Sprintf("fib(%d), a fork per call", n)}
	for range *runs {
		r.seq = append(r.seq, timed(r.name+", sequential", func() { must(fibSeq(n) == want, "fib") }))
		r.fj = append(r.fj, timedFJ(p, r.name+", fj", r.name, func(run pool.Runner) {
			must(forkjoin.Invoke(run, func(w *pool.Worker) int { return fibFJ(w, n, 0) }) == want, "fib fj")
		}))
		r.goroutine = append(r.goroutine, timed(r.name+", goroutines", func() { must(fibGo(n) == want, "fib goroutines") }))
	}
	return r
}

func fibCut(p *pool.Pool) result {
	n, cut := size(36, 24), size(20, 12)
	want := fibSeq(n)
	r := result{name: fmt.Sprintf("fib(%d), serial below %d", n, cut)}
	for range *runs {
		r.seq = append(r.seq, timed(r.name+", sequential", func() { must(fibSeq(n) == want, "fib") }))
		r.fj = append(r.fj, timedFJ(p, r.name+", fj", r.name, func(run pool.Runner) {
			must(forkjoin.Invoke(run, func(w *pool.Worker) int { return fibFJ(w, n, cut) }) == want, "fib fj")
		}))
	}
	return r
}

// --- quicksort written with Join ---

func randomInts(n int) []int {
	s := make([]int, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range s {
		s[i] = r.Int()
	}
	return s
}

// quicksort sorts s; with w == nil it runs sequentially.
func quicksort(w *pool.Worker, s []int, depth int) {
	for len(s) > 4096 && depth > 0 {
		depth--
		m := partition(s)
		left, right := s[:m], s[m+1:]
		if w == nil {
			quicksort(nil, left, depth)
			s = right
			continue
		}
		forkjoin.Join(w,
			func(w *pool.Worker) int { quicksort(w, left, depth); return 0 },
			func(w *pool.Worker) int { quicksort(w, right, depth); return 0 })
		return
	}
	slices.Sort(s)
}

func partition(s []int) int {
	last, mid := len(s)-1, len(s)/2
	if s[mid] < s[0] {
		s[mid], s[0] = s[0], s[mid]
	}
	if s[last] < s[0] {
		s[last], s[0] = s[0], s[last]
	}
	if s[mid] < s[last] {
		s[mid], s[last] = s[last], s[mid]
	}
	pivot, i := s[last], 0
	for j := 0; j < last; j++ {
		if s[j] < pivot {
			s[i], s[j] = s[j], s[i]
			i++
		}
	}
	s[i], s[last] = s[last], s[i]
	return i
}

func quicksortJoin(p *pool.Pool) result {
	n := size(5_000_000, 100_000)
	data := randomInts(n)
	r := result{name: fmt.Sprintf("Join quicksort, %s ints", amount(n))}
	a, b := make([]int, n), make([]int, n)
	for range *runs {
		copy(a, data)
		copy(b, data)
		r.seq = append(r.seq, timed(r.name+", sequential", func() { quicksort(nil, a, 64) }))
		r.fj = append(r.fj, timedFJ(p, r.name+", fj", r.name, func(run pool.Runner) {
			forkjoin.Invoke(run, func(w *pool.Worker) int { quicksort(w, b, 64); return 0 })
		}))
		must(slices.IsSorted(a) && slices.Equal(a, b), "quicksort")
	}
	return r
}

// --- parallel.Sort ---

// sortInts times parallel.Sort on the pool and, unless the pool has one
// worker, on a pool of one worker too: parallel.Sort is a faster
// algorithm than slices.Sort even on one worker, and the showcase says
// how much of the speedup that is.
func sortInts(p *pool.Pool) result {
	n := size(10_000_000, 100_000)
	data := randomInts(n)
	r := result{name: fmt.Sprintf("parallel.Sort, %s ints", amount(n))}
	var p1 *pool.Pool
	if p.Workers() > 1 {
		p1 = pool.New(pool.WithWorkers(1), pool.WithName("showcase-1"))
		defer p1.Close()
	}
	a, b := make([]int, n), make([]int, n)
	for range *runs {
		copy(a, data)
		copy(b, data)
		r.seq = append(r.seq, timed(r.name+", slices.Sort", func() { slices.Sort(a) }))
		r.fj = append(r.fj, timedFJ(p, r.name+", parallel.Sort", r.name, func(run pool.Runner) { parallel.Sort(run, b) }))
		must(slices.Equal(a, b), "sort")
		if p1 != nil {
			copy(b, data)
			r.fj1 = append(r.fj1, timedFJ(p1, r.name+", parallel.Sort on 1 worker", r.name, func(run pool.Runner) { parallel.Sort(run, b) }))
			must(slices.Equal(a, b), "sort on 1 worker")
		}
	}
	return r
}

// --- parallel.Reduce ---

func reduceSum(p *pool.Pool) result {
	n := size(50_000_000, 200_000)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i % 1000)
	}
	r := result{name: fmt.Sprintf("Reduce, sum of %s", amount(n))}
	for range *runs {
		var seqSum, fjSum float64
		r.seq = append(r.seq, timed(r.name+", loop", func() {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			seqSum = s
		}))
		r.fj = append(r.fj, timedFJ(p, r.name+", fj", r.name, func(run pool.Runner) {
			fjSum = parallel.Reduce(run, 0, n, 0.0, func(_ *pool.Worker, lo, hi int) float64 {
				s := 0.0
				for _, x := range xs[lo:hi] {
					s += x
				}
				return s
			}, func(a, b float64) float64 { return a + b })
		}))
		must(seqSum == fjSum, "sum") // exact here: every partial sum is an integer below 2^53
	}
	return r
}

// --- Mandelbrot with parallel.For ---

func mandelRow(img *image.Gray, y, size, maxIter int) {
	ci := float64(y)/float64(size)*2.4 - 1.2
	for x := 0; x < size; x++ {
		cr := float64(x)/float64(size)*3.2 - 2.2
		zr, zi := 0.0, 0.0
		i := 0
		for ; i < maxIter && zr*zr+zi*zi <= 4; i++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		shade := uint8(0)
		if i < maxIter {
			shade = uint8(255 - 255*i/maxIter)
		}
		img.SetGray(x, y, color.Gray{Y: shade})
	}
}

func mandelbrot(p *pool.Pool) result {
	sz, maxIter := size(1024, 128), 500
	r := result{name: fmt.Sprintf("Mandelbrot %dx%d", sz, sz)}
	a := image.NewGray(image.Rect(0, 0, sz, sz))
	b := image.NewGray(image.Rect(0, 0, sz, sz))
	for range *runs {
		clear(a.Pix)
		clear(b.Pix)
		r.seq = append(r.seq, timed(r.name+", loop", func() {
			for y := 0; y < sz; y++ {
				mandelRow(a, y, sz, maxIter)
			}
		}))
		r.fj = append(r.fj, timedFJ(p, r.name+", fj", r.name, func(run pool.Runner) {
			parallel.For(run, 0, sz, func(_ *pool.Worker, y int) { mandelRow(b, y, sz, maxIter) })
		}))
		must(slices.Equal(a.Pix, b.Pix), "mandelbrot")
	}
	imageFile = writeImage(b)
	return r
}

// imageFile is the name of the file the Mandelbrot image went to, or "".
var imageFile string

// writeImage writes img where -png or -pngtemp asks, and returns the
// file's name, or "" if neither asked for it.
func writeImage(img *image.Gray) string {
	var f *os.File
	var err error
	switch {
	case *pngPath != "":
		f, err = os.Create(*pngPath)
	case *pngTemp:
		f, err = os.CreateTemp("", "fj-mandelbrot-*.png")
	default:
		return ""
	}
	check(err)
	check(png.Encode(f, img))
	check(f.Close())
	return f.Name()
}

// --- the N4411 tree walk with task blocks ---

type node struct {
	value       int
	left, right *node
}

func build(depth int) *node {
	if depth == 0 {
		return nil
	}
	return &node{value: depth, left: build(depth - 1), right: build(depth - 1)}
}

func sumSeq(n *node) int {
	if n == nil {
		return 0
	}
	return n.value + sumSeq(n.left) + sumSeq(n.right)
}

func sumBlocks(w *pool.Worker, n *node, height, cut int) int {
	if height <= cut {
		return sumSeq(n)
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { left = sumBlocks(w, n.left, height-1, cut) })
		b.Run(func(w *pool.Worker) { right = sumBlocks(w, n.right, height-1, cut) })
	})
	return n.value + left + right
}

func sumGo(n *node, height, cut int) int {
	if height <= cut {
		return sumSeq(n)
	}
	var left, right int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); left = sumGo(n.left, height-1, cut) }()
	go func() { defer wg.Done(); right = sumGo(n.right, height-1, cut) }()
	wg.Wait()
	return n.value + left + right
}

func treeWalk(p *pool.Pool) result {
	depth, cut := size(22, 12), size(10, 4)
	tree := build(depth)
	want := sumSeq(tree)
	r := result{name: fmt.Sprintf("tree walk, depth %d", depth)}
	for range *runs {
		r.seq = append(r.seq, timed(r.name+", sequential", func() { must(sumSeq(tree) == want, "tree") }))
		r.fj = append(r.fj, timedFJ(p, r.name+", fj", r.name, func(run pool.Runner) {
			var got int
			taskblock.Define(run, func(b *taskblock.Block) { got = sumBlocks(b.Worker(), tree, depth, cut) })
			must(got == want, "tree fj")
		}))
		r.goroutine = append(r.goroutine, timed(r.name+", goroutines", func() { must(sumGo(tree, depth, cut) == want, "tree goroutines") }))
	}
	return r
}
