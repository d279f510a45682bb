package cilk5

import (
	"fmt"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// HeatLeafRows is the number of grid rows a leaf of heat's divide and
// conquer updates serially.
const HeatLeafRows = 16

// heatAlpha is the diffusion coefficient times the time step over the
// square of the grid spacing; below 1/4 the explicit scheme is stable.
const heatAlpha = 0.2

// A Grid is a rows×cols grid of temperatures, stored by rows. Heat holds
// its border fixed (a Dirichlet boundary) and updates the interior.
type Grid struct {
	Rows, Cols int
	T          []float64
}

// NewHeatGrid returns a rows×cols grid, at least 3×3, whose top border is
// hot (1), whose other borders are cold (0), and whose interior starts at
// 0.
func NewHeatGrid(rows, cols int) Grid {
	if rows < 3 || cols < 3 {
		panic(fmt.Sprintf("cilk5: a %d×%d heat grid: it must be at least 3×3", rows, cols))
	}
	g := Grid{rows, cols, make([]float64, rows*cols)}
	for j := range cols {
		g.T[j] = 1
	}
	return g
}

func checkHeat(g, scratch Grid) {
	if g.Rows < 3 || g.Cols < 3 || len(g.T) != g.Rows*g.Cols {
		panic(fmt.Sprintf("cilk5: heat on a %d×%d grid of %d values: it must be at least 3×3 and hold rows×cols values", g.Rows, g.Cols, len(g.T)))
	}
	if scratch.Rows != g.Rows || scratch.Cols != g.Cols || len(scratch.T) != len(g.T) {
		panic("cilk5: heat with a scratch grid of another size")
	}
}

// Heat is the serial elision of the heat program: steps explicit (Jacobi)
// steps of 2-D heat diffusion on g, with scratch, a grid of the same size,
// as the other buffer. Each step computes every interior point of the new
// grid from its four neighbours in the old one, dividing the rows in
// halves down to HeatLeafRows. It returns the grid that holds the last
// step's temperatures: g after an even number of steps, scratch after an
// odd one.
func Heat(g, scratch Grid, steps int) Grid {
	checkHeat(g, scratch)
	copy(scratch.T, g.T) // the border, which no step writes
	src, dst := g, scratch
	for range steps {
		heatRows(src, dst, 1, g.Rows-1)
		src, dst = dst, src
	}
	return src
}

func heatRows(src, dst Grid, lo, hi int) {
	if hi-lo <= HeatLeafRows {
		heatLeaf(src, dst, lo, hi)
		return
	}
	mid := lo + (hi-lo)/2
	heatRows(src, dst, lo, mid)
	heatRows(src, dst, mid, hi)
}

// heatLeaf updates rows [lo, hi) of dst's interior from src.
func heatLeaf(src, dst Grid, lo, hi int) {
	c := src.Cols
	for i := lo; i < hi; i++ {
		up := src.T[(i-1)*c : i*c]
		row := src.T[i*c : (i+1)*c]
		down := src.T[(i+1)*c : (i+2)*c]
		out := dst.T[i*c : (i+1)*c]
		for j := 1; j < c-1; j++ {
			out[j] = row[j] + heatAlpha*(up[j]+down[j]+row[j-1]+row[j+1]-4*row[j])
		}
	}
}

// HeatFJ is Heat with the two halves of every split of the rows updated
// in parallel; the steps follow one another.
func HeatFJ(w *pool.Worker, g, scratch Grid, steps int) Grid {
	checkHeat(g, scratch)
	copy(scratch.T, g.T)
	src, dst := g, scratch
	for range steps {
		heatRowsFJ(w, src, dst, 1, g.Rows-1)
		src, dst = dst, src
	}
	return src
}

func heatRowsFJ(w *pool.Worker, src, dst Grid, lo, hi int) {
	if hi-lo <= HeatLeafRows {
		heatLeaf(src, dst, lo, hi)
		return
	}
	mid := lo + (hi-lo)/2
	parallel.Do(w,
		func(w *pool.Worker) { heatRowsFJ(w, src, dst, lo, mid) },
		func(w *pool.Worker) { heatRowsFJ(w, src, dst, mid, hi) })
}

// heatLoop is heat as two plain loops, an independent check of the
// divide and conquer: the same arithmetic on every point, so the same
// bits.
func heatLoop(g Grid, steps int) []float64 {
	c := g.Cols
	src, dst := append([]float64(nil), g.T...), append([]float64(nil), g.T...)
	for range steps {
		for i := 1; i < g.Rows-1; i++ {
			for j := 1; j < c-1; j++ {
				p := i*c + j
				dst[p] = src[p] + heatAlpha*(src[p-c]+src[p+c]+src[p-1]+src[p+1]-4*src[p])
			}
		}
		src, dst = dst, src
	}
	return src
}
