package cilk5

import (
	"fmt"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// MatMulBase is the size of the blocks the matrix multiplications
// multiply serially: 32×32 float64s, 8 KiB a block, three of which fit in
// a first-level cache.
const MatMulBase = 32

// matrix is an n×n block of a row-major matrix whose rows are stride
// elements apart; a[0] is its top-left element.
type matrix struct {
	a         []float64
	n, stride int
}

// quad returns the quadrant (i, j) of m, i and j in {0, 1}.
func (m matrix) quad(i, j int) matrix {
	h := m.n / 2
	return matrix{m.a[i*h*m.stride+j*h:], h, m.stride}
}

// quads returns the four quadrants of m.
func (m matrix) quads() (m11, m12, m21, m22 matrix) {
	return m.quad(0, 0), m.quad(0, 1), m.quad(1, 0), m.quad(1, 1)
}

// mulAddBase adds a×b to c, serially: the leaf of every multiplication.
func mulAddBase(c, a, b matrix) {
	n := c.n
	for i := range n {
		ci := c.a[i*c.stride : i*c.stride+n]
		ai := a.a[i*a.stride : i*a.stride+n]
		for k, aik := range ai {
			bk := b.a[k*b.stride : k*b.stride+n]
			for j, bkj := range bk {
				ci[j] += aik * bkj
			}
		}
	}
}

// add adds s to c, element by element.
func add(c, s matrix) {
	n := c.n
	for i := range n {
		ci := c.a[i*c.stride : i*c.stride+n]
		si := s.a[i*s.stride : i*s.stride+n]
		for j, x := range si {
			ci[j] += x
		}
	}
}

func squareMatrices(name string, c, a, b []float64, n int) (matrix, matrix, matrix) {
	m := n
	for m > MatMulBase && m%2 == 0 {
		m /= 2
	}
	if m != MatMulBase {
		panic(fmt.Sprintf("cilk5: %s with n = %d: n must be %d times a power of two", name, n, MatMulBase))
	}
	if len(a) < n*n || len(b) < n*n || len(c) < n*n {
		panic(fmt.Sprintf("cilk5: %s with n = %d: a, b and c must hold n×n elements", name, n))
	}
	return matrix{c, n, n}, matrix{a, n, n}, matrix{b, n, n}
}

// NoTempMul is the serial elision of the notempmul program: it adds a×b
// to c, where a, b and c are n×n row-major matrices and n is MatMulBase
// times a power of two. Each quadrant of c receives two products of
// quadrants, in two phases: first the four products that involve the left
// half of a, then the four with its right half. It needs no temporary
// storage.
func NoTempMul(c, a, b []float64, n int) {
	mc, ma, mb := squareMatrices("NoTempMul", c, a, b, n)
	noTempMul(mc, ma, mb)
}

func noTempMul(c, a, b matrix) {
	if c.n <= MatMulBase {
		mulAddBase(c, a, b)
		return
	}
	a11, a12, a21, a22 := a.quads()
	b11, b12, b21, b22 := b.quads()
	c11, c12, c21, c22 := c.quads()
	noTempMul(c11, a11, b11)
	noTempMul(c12, a11, b12)
	noTempMul(c21, a21, b11)
	noTempMul(c22, a21, b12)

	noTempMul(c11, a12, b21)
	noTempMul(c12, a12, b22)
	noTempMul(c21, a22, b21)
	noTempMul(c22, a22, b22)
}

// NoTempMulFJ is NoTempMul with the four products of each phase in
// parallel: they write to different quadrants of c.
func NoTempMulFJ(w *pool.Worker, c, a, b []float64, n int) {
	mc, ma, mb := squareMatrices("NoTempMulFJ", c, a, b, n)
	noTempMulFJ(w, mc, ma, mb)
}

func noTempMulFJ(w *pool.Worker, c, a, b matrix) {
	if c.n <= MatMulBase {
		mulAddBase(c, a, b)
		return
	}
	a11, a12, a21, a22 := a.quads()
	b11, b12, b21, b22 := b.quads()
	c11, c12, c21, c22 := c.quads()
	parallel.Do(w,
		func(w *pool.Worker) { noTempMulFJ(w, c11, a11, b11) },
		func(w *pool.Worker) { noTempMulFJ(w, c12, a11, b12) },
		func(w *pool.Worker) { noTempMulFJ(w, c21, a21, b11) },
		func(w *pool.Worker) { noTempMulFJ(w, c22, a21, b12) })
	parallel.Do(w,
		func(w *pool.Worker) { noTempMulFJ(w, c11, a12, b21) },
		func(w *pool.Worker) { noTempMulFJ(w, c12, a12, b22) },
		func(w *pool.Worker) { noTempMulFJ(w, c21, a22, b21) },
		func(w *pool.Worker) { noTempMulFJ(w, c22, a22, b22) })
}

// BlockedMul is the serial elision of the blockedmul program: it adds a×b
// to c, as NoTempMul, but computes all eight products of quadrants at
// once, four into c and four into a temporary matrix, which it then adds
// to c. Each level of the recursion allocates its temporary.
func BlockedMul(c, a, b []float64, n int) {
	mc, ma, mb := squareMatrices("BlockedMul", c, a, b, n)
	blockedMul(mc, ma, mb)
}

func blockedMul(c, a, b matrix) {
	if c.n <= MatMulBase {
		mulAddBase(c, a, b)
		return
	}
	t := matrix{make([]float64, c.n*c.n), c.n, c.n}
	a11, a12, a21, a22 := a.quads()
	b11, b12, b21, b22 := b.quads()
	c11, c12, c21, c22 := c.quads()
	t11, t12, t21, t22 := t.quads()
	blockedMul(c11, a11, b11)
	blockedMul(c12, a11, b12)
	blockedMul(c21, a21, b11)
	blockedMul(c22, a21, b12)
	blockedMul(t11, a12, b21)
	blockedMul(t12, a12, b22)
	blockedMul(t21, a22, b21)
	blockedMul(t22, a22, b22)
	addDC(c, t)
}

// addDC adds s to c by quadrants, down to MatMulBase.
func addDC(c, s matrix) {
	if c.n <= MatMulBase {
		add(c, s)
		return
	}
	c11, c12, c21, c22 := c.quads()
	s11, s12, s21, s22 := s.quads()
	addDC(c11, s11)
	addDC(c12, s12)
	addDC(c21, s21)
	addDC(c22, s22)
}

// BlockedMulFJ is BlockedMul with the eight products in parallel, then
// the addition of the temporary, itself split in parallel by quadrants.
func BlockedMulFJ(w *pool.Worker, c, a, b []float64, n int) {
	mc, ma, mb := squareMatrices("BlockedMulFJ", c, a, b, n)
	blockedMulFJ(w, mc, ma, mb)
}

func blockedMulFJ(w *pool.Worker, c, a, b matrix) {
	if c.n <= MatMulBase {
		mulAddBase(c, a, b)
		return
	}
	t := matrix{make([]float64, c.n*c.n), c.n, c.n}
	a11, a12, a21, a22 := a.quads()
	b11, b12, b21, b22 := b.quads()
	c11, c12, c21, c22 := c.quads()
	t11, t12, t21, t22 := t.quads()
	parallel.Do(w,
		func(w *pool.Worker) { blockedMulFJ(w, c11, a11, b11) },
		func(w *pool.Worker) { blockedMulFJ(w, c12, a11, b12) },
		func(w *pool.Worker) { blockedMulFJ(w, c21, a21, b11) },
		func(w *pool.Worker) { blockedMulFJ(w, c22, a21, b12) },
		func(w *pool.Worker) { blockedMulFJ(w, t11, a12, b21) },
		func(w *pool.Worker) { blockedMulFJ(w, t12, a12, b22) },
		func(w *pool.Worker) { blockedMulFJ(w, t21, a22, b21) },
		func(w *pool.Worker) { blockedMulFJ(w, t22, a22, b22) })
	addDCFJ(w, c, t)
}

func addDCFJ(w *pool.Worker, c, s matrix) {
	if c.n <= MatMulBase {
		add(c, s)
		return
	}
	c11, c12, c21, c22 := c.quads()
	s11, s12, s21, s22 := s.quads()
	parallel.Do(w,
		func(w *pool.Worker) { addDCFJ(w, c11, s11) },
		func(w *pool.Worker) { addDCFJ(w, c12, s12) },
		func(w *pool.Worker) { addDCFJ(w, c21, s21) },
		func(w *pool.Worker) { addDCFJ(w, c22, s22) })
}

// mulNaive adds a×b to c by the textbook triple loop: an independent
// check of the divide-and-conquer forms.
func mulNaive(c, a, b []float64, n int) {
	for i := range n {
		for k := range n {
			aik := a[i*n+k]
			for j := range n {
				c[i*n+j] += aik * b[k*n+j]
			}
		}
	}
}
