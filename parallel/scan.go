package parallel

import "github.com/forkjoin/fj/pool"

// Scan replaces every element of s with the combination of it and all
// elements before it, in place: s[i] becomes op(...op(op(s[0], s[1]),
// s[2])..., s[i]), the inclusive prefix "sum" under op. op must be
// associative; it need not be commutative.
//
// It is the classic two-pass parallel scan: the slice is cut into pieces,
// the first pass reduces every piece in parallel, a short sequential pass
// turns the piece totals into prefixes, and the second pass scans every
// piece in parallel starting from the prefix of the pieces before it. That
// is about twice the work of a sequential scan, split over the workers, so
// it pays off with three or more workers, or when op is expensive. Short
// slices (under the grain, or a few thousand elements by default) are
// scanned sequentially. Panics are handled as in For.
//
// With a Context that ends, or a Stop flag that is set, Scan stops
// between pieces and returns: every element of s then holds either its
// original value or its final one (the prefix), as a piece is scanned in
// place all at once or not at all. Check ctx.Err() or the flag afterwards.
// A call whose context is done, or whose flag is set, already leaves s as
// it was.
//
//	parallel.Scan(p, counts, func(a, b int) int { return a + b }) // counts become offsets+count
func Scan[S ~[]E, E any](r pool.Runner, s S, op func(a, b E) E, opts ...Option) {
	if op == nil {
		panic("parallel: Scan with a nil op")
	}
	w := enter(r)
	// The options first, whatever the input: a WithContext option is
	// used up, and its context ends when Scan returns, also on a slice
	// too short to scan.
	c, ctl := controlled("Scan", opts)
	defer ctl.finish()
	n := len(s)
	if n < 2 || ctl.stopped() {
		return
	}
	minPiece := c.grain
	if minPiece == 0 {
		minPiece = scanMinPiece
	}
	run(r, w, ctl, func(w *pool.Worker) {
		pieces := min(4*w.Pool().Workers(), n/minPiece)
		if pieces < 2 {
			for i := 1; i < n; i++ {
				s[i] = op(s[i-1], s[i])
			}
			return
		}
		bound := func(k int) int { return int(uint64(k) * uint64(n) / uint64(pieces)) }

		// Pass 1: the total of every piece but the last (whose total
		// nobody needs). The first piece is scanned outright: its
		// total is its last element, and pass 2 can skip it.
		totals := make([]E, pieces-1)
		forPieces(w, ctl, 1, uint64(pieces-1), func(w *pool.Worker, klo, khi uint64) {
			for k := int(klo); k < int(khi); k++ {
				lo, hi := bound(k), bound(k+1)
				if k == 0 {
					for i := lo + 1; i < hi; i++ {
						s[i] = op(s[i-1], s[i])
					}
					totals[0] = s[hi-1]
					continue
				}
				acc := s[lo]
				for _, x := range s[lo+1 : hi] {
					acc = op(acc, x)
				}
				totals[k] = acc
			}
		})
		if ctl.stopped() {
			return
		}

		// Prefixes of the totals: totals[k] becomes the combination of
		// pieces 0..k, the carry into piece k+1.
		for k := 1; k < len(totals); k++ {
			totals[k] = op(totals[k-1], totals[k])
		}

		// Pass 2: scan pieces 1..pieces-1, starting from their carry.
		forPieces(w, ctl, 1, uint64(pieces-1), func(w *pool.Worker, klo, khi uint64) {
			for k := int(klo) + 1; k < int(khi)+1; k++ {
				lo, hi := bound(k), bound(k+1)
				s[lo] = op(totals[k-1], s[lo])
				for i := lo + 1; i < hi; i++ {
					s[i] = op(s[i-1], s[i])
				}
			}
		})
	})
}

// scanMinPiece is the smallest piece Scan cuts by default: below it, the
// cost of a task and of touching the slice twice beats the gain.
const scanMinPiece = 4096
