package bench

// The workloads, written once per library. Every parallel implementation
// splits the work the way its library's documentation suggests, uses as
// many goroutines or workers as GOMAXPROCS (so that go test -cpu sets the
// parallelism for all of them alike), and computes exactly what the
// sequential version computes; peers_verify_test.go checks that.

import (
	"runtime"
	"sync"

	"github.com/alitto/pond/v2"
	pargo "github.com/exascience/pargo/parallel"
	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/iter"
	"golang.org/x/sync/errgroup"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// Fork/join: fib(n), forking both calls above cut and calling fibSeq
// below it (cut 0: a fork at every level). pond is absent: a pond task
// that waits for tasks it submitted holds one of a bounded pool's
// workers, and recursive waits deadlock once all of them wait.

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// forks returns how many forks the fork/join versions make for fib(n)
// with the given cut: one per call that does not go to fibSeq.
func forks(n, cut int) int {
	if n < 2 || n < cut {
		return 0
	}
	return 1 + forks(n-1, cut) + forks(n-2, cut)
}

func fibGoroutine(n, cut int) int {
	if n < 2 || n < cut {
		return fibSeq(n)
	}
	var wg sync.WaitGroup
	var b int
	wg.Add(1)
	go func() { defer wg.Done(); b = fibGoroutine(n-2, cut) }()
	a := fibGoroutine(n-1, cut)
	wg.Wait()
	return a + b
}

func fibErrgroup(n, cut int) int {
	if n < 2 || n < cut {
		return fibSeq(n)
	}
	var g errgroup.Group
	var b int
	g.Go(func() error { b = fibErrgroup(n-2, cut); return nil })
	a := fibErrgroup(n-1, cut)
	_ = g.Wait()
	return a + b
}

func fibConc(n, cut int) int {
	if n < 2 || n < cut {
		return fibSeq(n)
	}
	var wg conc.WaitGroup
	var b int
	wg.Go(func() { b = fibConc(n-2, cut) })
	a := fibConc(n-1, cut)
	wg.Wait()
	return a + b
}

func fibFJ(w *pool.Worker, n, cut int) int {
	if n < 2 || n < cut {
		return fibSeq(n)
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibFJ(w, n-1, cut) },
		func(w *pool.Worker) int { return fibFJ(w, n-2, cut) })
	return a + b
}

// Reduce: the sum of a []float64. The libraries without a reduction get
// the slice in chunks, partial sums per chunk, added in chunk order.

func sumRange(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// chunkBounds cuts [0, n) into k contiguous chunks of nearly equal length.
func chunkBounds(n, k int) [][2]int {
	k = max(1, min(k, n))
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return out
}

// chunksPerCore is how many chunks the chunked peers cut a slice into per
// GOMAXPROCS: more than one, so that a core slowed down by something else
// does not hold up the end.
const chunksPerCore = 4

func sumFJ(p *pool.Pool, xs []float64) float64 {
	return parallel.Reduce(p, 0, len(xs), 0.0,
		func(_ *pool.Worker, lo, hi int) float64 { return sumRange(xs[lo:hi]) },
		func(a, b float64) float64 { return a + b })
}

func sumGoroutines(xs []float64) float64 {
	chunks := chunkBounds(len(xs), runtime.GOMAXPROCS(0))
	partial := make([]float64, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() { defer wg.Done(); partial[i] = sumRange(xs[c[0]:c[1]]) }()
	}
	wg.Wait()
	return sumRange(partial)
}

func sumConcIter(xs []float64) float64 {
	chunks := chunkBounds(len(xs), chunksPerCore*runtime.GOMAXPROCS(0))
	partial := iter.Map(chunks, func(c *[2]int) float64 { return sumRange(xs[c[0]:c[1]]) })
	return sumRange(partial)
}

func sumPond(p pond.ResultPool[float64], xs []float64) float64 {
	g := p.NewGroup()
	for _, c := range chunkBounds(len(xs), chunksPerCore*runtime.GOMAXPROCS(0)) {
		g.Submit(func() float64 { return sumRange(xs[c[0]:c[1]]) })
	}
	partial, err := g.Wait()
	if err != nil {
		panic(err)
	}
	return sumRange(partial)
}

// sumPargo uses pargo's reduction over a range, with the number of
// batches left to pargo (0: twice GOMAXPROCS); each batch runs on a
// goroutine of its own, and the partial sums are added pairwise in range
// order.
func sumPargo(xs []float64) float64 {
	return pargo.RangeReduceFloat64Sum(0, len(xs), 0, func(lo, hi int) float64 { return sumRange(xs[lo:hi]) })
}

// Mandelbrot: an image of w x h pixels, one task per row; rows through
// the set cost up to mandelMaxIter iterations per pixel, rows outside it
// a few, so the work per row is very uneven.

const mandelMaxIter = 500

type image struct {
	w, h int
	pix  []uint16
}

func newImage(w, h int) *image { return &image{w, h, make([]uint16, w*h)} }

func (m *image) row(y int) {
	ci := float64(y)/float64(m.h)*2.4 - 1.2
	row := m.pix[y*m.w : (y+1)*m.w]
	for x := range row {
		cr := float64(x)/float64(m.w)*3.2 - 2.2
		zr, zi := 0.0, 0.0
		i := 0
		for ; i < mandelMaxIter && zr*zr+zi*zi <= 4; i++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		row[x] = uint16(i)
	}
}

func (m *image) loop() {
	for y := 0; y < m.h; y++ {
		m.row(y)
	}
}

func (m *image) fj(p *pool.Pool) {
	parallel.For(p, 0, m.h, func(_ *pool.Worker, y int) { m.row(y) })
}

func (m *image) concIter() {
	rows := make([]struct{}, m.h)
	iter.ForEachIdx(rows, func(y int, _ *struct{}) { m.row(y) })
}

func (m *image) pond(p pond.Pool) {
	g := p.NewGroup()
	for y := 0; y < m.h; y++ {
		g.Submit(func() { m.row(y) })
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
}

// pargo runs a batch per row (pargo's Range with as many batches as
// rows: a goroutine per row, forked by halving the range), as the other
// peers run a task per row, rather than pargo's default of twice
// GOMAXPROCS batches of consecutive rows, whose costs differ as much as
// the rows do.
func (m *image) pargo() {
	pargo.Range(0, m.h, m.h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			m.row(y)
		}
	})
}

func (m *image) errgroup() {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for y := 0; y < m.h; y++ {
		g.Go(func() error { m.row(y); return nil })
	}
	_ = g.Wait()
}

func (m *image) checksum() (s uint64) {
	for _, v := range m.pix {
		s += uint64(v)
	}
	return s
}

// The sorts are in peers_sort_test.go.

// Blocking work: tasks that sleep (or wait for I/O) hold a worker of a
// fixed pool for as long as they block; goroutines do not.

func blockTaskblock(p *pool.Pool, tasks int, f func()) {
	taskblock.Define(p, func(b *taskblock.Block) {
		for i := 0; i < tasks; i++ {
			b.Run(func(*pool.Worker) { f() })
		}
	})
}

func blockErrgroup(tasks int, f func()) {
	var g errgroup.Group
	for i := 0; i < tasks; i++ {
		g.Go(func() error { f(); return nil })
	}
	_ = g.Wait()
}
