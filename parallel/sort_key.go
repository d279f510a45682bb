package parallel

import (
	"math"
	"math/bits"
	"unsafe"

	"golang.org/x/exp/constraints"

	"github.com/forkjoin/fj/pool"
)

// radixKey is the set of key types SortByKey sorts by: integers and
// floating-point numbers, and types defined over them.
type radixKey interface {
	constraints.Integer | constraints.Float
}

// SortByKey sorts s in parallel by key(e) ascending, keeping elements with
// equal keys in their original order. The result is exactly the one
//
//	slices.SortStableFunc(s, func(a, b E) int { return cmp.Compare(key(a), key(b)) })
//
// gives: for floating-point keys, NaNs come first (all NaNs are equal, so
// they keep their order), and -0 and +0 are equal.
//
// SortByKey is a radix sort, for records sorted by a number it is much
// faster than a comparison sort. It calls key exactly once per element, in
// parallel, and keeps the keys, as unsigned integers that sort in the same
// order, next to the elements; its scratch memory is a buffer as long as s
// and two slices of n uint64, 16 bytes per element, besides (see below for
// when it is allocated). It sorts by 8-bit digits, skipping every digit in
// which all keys agree, so keys that span a small range (say, years, or
// values under 65536) cost one or two passes whatever their type. A long
// slice is first split by its most significant digit, in parallel: each
// worker counts the digits of a piece of the slice, and, once a prefix sum
// over these counts gives every piece its place in every bucket, moves its
// elements there, keeping their order. The buckets, small enough to stay
// in a core's cache, are then sorted by the remaining digits
// independently, in parallel, least significant digit first.
//
// A call allocates its scratch memory only if no earlier call left one
// long enough: when it returns, a call leaves its scratch to the later
// calls on slices of the same element type, so a program that sorts again
// and again allocates it once. The scratch kept is freed by the garbage
// collector once no call has taken it through two collections, as a
// sync.Pool is emptied, and at most GOMAXPROCS of them are kept per
// element type (those of calls that ran at the same time). A call that
// allocates has its workers fault the fresh pages in, each its own part,
// while they compute the keys: the first touch of fresh memory, a page
// fault per page, would otherwise cost as much as the sort. On Linux the
// scratch of elements without pointers, if it is 1 MiB or more, is
// mapped outside the Go heap, where the Go runtime does not count it
// (pool.Stats does, as ScratchBytes), and once the collector has dropped
// it the mapping is kept for up to a minute (two at most): a program
// that sorts now and then, collecting garbage in between, reuses it
// instead of faulting fresh pages in for every call. With a memory limit
// set (debug.SetMemoryLimit, GOMEMLIMIT), such scratch that no call is
// using is unmapped as a call returns, and after each collection, when
// the runtime's memory, with the heap grown to its goal, and the scratch
// together would pass the limit. If E holds
// pointers, the scratch is cleared before it is kept, so it keeps no
// element alive. A slice of at most 32 elements is sorted in place, with
// only its keys besides.
//
// key is called from several workers at once and must be safe for
// concurrent use. If key panics, SortByKey panics in the caller with a
// *pool.PanicError carrying the original value, after the running calls
// have finished, and s is left as it was: no element moves before every
// key is known. Slices of up to a few thousand elements are sorted on the
// calling goroutine.
//
// SortByKey panics if key is nil.
//
// opts may be Context and Stop (other options panic): once the context
// ends or the flag is set, SortByKey stops and returns, with s holding
// exactly the elements it held: as it was if it stops while computing the
// keys, in no particular order if it stops while moving the elements (a
// bucket that has not been sorted yet is copied back in place). Check
// ctx.Err() or the flag afterwards. A call whose context is done, or whose
// flag is set, calls key for no element.
func SortByKey[S ~[]E, E any, K constraints.Integer | constraints.Float](r pool.Runner, s S, key func(E) K, opts ...Option) {
	if key == nil {
		panic("parallel: SortByKey with a nil key function")
	}
	w := enter(r)
	ctl := sortControl("SortByKey", opts)
	if ctl != nil {
		defer ctl.finish()
	}
	n := len(s)
	if n == 0 || ctl.stoppedNow() {
		return
	}
	if n < 2 {
		if n == 1 {
			// Nothing to sort, but key is called once per element,
			// and a panic in it is reported as on a longer slice.
			inline(ctl, func() { key(s[0]) })
		}
		return
	}
	rs := &radixSorter[E]{s: s, ctl: ctl}
	rs.lsdMax = max(radixInsertionMax, radixCacheBytes/int(unsafe.Sizeof(*new(E))+8))
	if n <= radixInsertionMax {
		// Sorted in place by insertion: no buffer, and too short for
		// the cache to pay.
		rs.k = make([]uint64, n)
		sortHere(rs, key)
		return
	}
	sc := takeScratch[E](n)
	returned := false
	defer sc.giveBack(&returned)
	rs.use(sc)
	if n <= min(rs.lsdMax, radixSeqMax) {
		sortHere(rs, key) // no task pays off
		returned = true
		return
	}
	fresh := sc.fresh
	run(r, w, ctl, func(w *pool.Worker) {
		type bitsSeen struct{ or, and uint64 }
		keys := loop[bitsSeen, int]{chunk: func(w *pool.Worker, lo, hi int) bitsSeen {
			if fresh {
				// The first touch of a page of fresh memory
				// costs a fault and the kernel's zeroing of the
				// page: spread over the workers here, rather
				// than taken by whichever pass writes first
				// (sort_key_scratch.md, K3). A system
				// call the kernel works in: the stall watch
				// counts no system call (stall.md, Limits).
				touchPages(rs.buf[lo:hi])
				touchPages(rs.k[lo:hi])
				touchPages(rs.kbuf[lo:hi])
			}
			or, and := encodeKeys(s[lo:hi], key, rs.k[lo:hi])
			return bitsSeen{or, and}
		}, combine: func(a, b bitsSeen) bitsSeen { return bitsSeen{a.or | b.or, a.and & b.and} }, ctl: ctl}
		keys.setup(w.Pool().Workers(), uint64(n), nil)
		seen := keys.run(w, 0, uint64(n))
		if ctl.stoppedNow() || !seen.ok {
			return // some keys are unknown: nothing has moved
		}
		if !rs.plan(seen.v.or, seen.v.and) {
			return
		}
		rs.sort(w, 0, n, 0, true)
	})
	returned = true
}

// encodeKeys stores in ks the key of every element of s, mapped to a
// uint64 that sorts in the order cmp.Compare gives the keys, and returns
// the OR and the AND of these: the bits in which the keys differ are the
// ones set in the first and clear in the second.
func encodeKeys[E any, K radixKey](s []E, key func(E) K, ks []uint64) (or, and uint64) {
	ks = ks[:len(s)]
	and = ^uint64(0)
	var zero K
	half := 0.5
	switch {
	case K(half) != 0: // floating point
		for i, e := range s {
			f := float64(key(e)) // exact for float32, order and NaNs kept
			var u uint64
			switch {
			case f != f:
				u = 0 // every NaN, below -Inf, as cmp.Compare has it
			case f == 0:
				u = 1 << 63 // -0 and +0 alike
			default:
				b := math.Float64bits(f)
				if b>>63 != 0 {
					u = ^b // negative: larger magnitudes first
				} else {
					u = b | 1<<63
				}
			}
			ks[i] = u
			or |= u
			and &= u
		}
	case zero-1 < zero: // signed: sign-extend, then move the sign
		for i, e := range s {
			u := uint64(int64(key(e))) ^ 1<<63
			ks[i] = u
			or |= u
			and &= u
		}
	default:
		for i, e := range s {
			u := uint64(key(e))
			ks[i] = u
			or |= u
			and &= u
		}
	}
	return or, and
}

// radixSorter sorts s by the keys in k, using buf and kbuf, as long, as
// scratch space. A range of elements, with its keys, is either in s and k
// or, at the same indices, in buf and kbuf; passes move it from one to
// the other, and a range whose last pass leaves it in buf is copied back.
type radixSorter[E any] struct {
	s, buf  []E
	k, kbuf []uint64
	// digits are the shifts of the 8-bit digits in which some keys
	// differ, most significant first.
	digits []uint
	// lsdMax is the longest range sorted by lsd: about what fits, twice,
	// in a core's cache.
	lsdMax int
	// clear is set if E holds pointers: every range of buf is cleared
	// once the range is final in s, so that the scratch, kept for later
	// calls, keeps nothing alive (sort_key_scratch.md, K4).
	clear bool
	ctl   *control // the call's, if it has options; nil otherwise
}

// use sets rs's buffers from sc, which is long enough for s.
func (rs *radixSorter[E]) use(sc *keyScratch[E]) {
	n, c := len(rs.s), len(sc.buf)
	rs.buf = sc.buf[:n]
	rs.k, rs.kbuf = sc.keys[:n:n], sc.keys[c:c+n:c+n]
	rs.clear = sc.cache.pointers
}

// done is called once for every range of s that is final (sorted, or
// left as it is by a stop), with the range in s: it clears the range's
// part of buf if E holds pointers, in parallel if the range is long.
func (rs *radixSorter[E]) done(w *pool.Worker, lo, hi int) {
	if !rs.clear {
		return
	}
	if hi-lo < radixParMin {
		clear(rs.buf[lo:hi])
		return
	}
	ForRange(w, lo, hi, func(_ *pool.Worker, lo, hi int) {
		clear(rs.buf[lo:hi])
	}, Grain(radixMinPiece))
}

// plan sets rs.digits from the OR and the AND of all keys, and reports
// whether there is anything to sort: if all keys are equal, s is sorted.
func (rs *radixSorter[E]) plan(or, and uint64) bool {
	differ := or ^ and
	if differ == 0 {
		return false
	}
	// Digits are aligned on the highest bit in which keys differ, so that
	// the first split uses all 256 buckets. The lowest digit may overlap
	// the one above it; sorting by bits already sorted by does no harm.
	low, high := bits.TrailingZeros64(differ), bits.Len64(differ)
	var ds []uint
	for sh := high - 8; ; sh -= 8 {
		sh = max(sh, low)
		if (differ>>sh)&0xff != 0 {
			ds = append(ds, uint(sh))
		}
		if sh == low {
			break
		}
	}
	rs.digits = ds
	return true
}

// ranges returns the slices a range is in (src) and the ones a pass moves
// it to (dst).
func (rs *radixSorter[E]) ranges(inS bool) (src, dst []E, ksrc, kdst []uint64) {
	if inS {
		return rs.s, rs.buf, rs.k, rs.kbuf
	}
	return rs.buf, rs.s, rs.kbuf, rs.k
}

// sortHere sorts rs.s on the calling goroutine, a slice too short for a
// task to pay off: its keys into rs.k, then an LSD pass per digit. A
// panic in key is reported as the parallel path reports it (inline).
func sortHere[E any, K radixKey](rs *radixSorter[E], key func(E) K) {
	var or, and uint64
	inline(rs.ctl, func() { or, and = encodeKeys(rs.s, key, rs.k) })
	if rs.plan(or, and) {
		rs.lsd(0, len(rs.s), rs.digits, true)
	}
}

// finish ends the sort of [lo, hi), which is in s if inS and in buf
// otherwise: it leaves the range in s and counts it done.
func (rs *radixSorter[E]) finish(w *pool.Worker, lo, hi int, inS bool) {
	if !inS {
		rs.copyBack(w, lo, hi)
	}
	rs.done(w, lo, hi)
}

// sort sorts [lo, hi), which is in s if inS and in buf otherwise, and
// whose keys agree in all digits before rs.digits[d], and leaves it in s.
func (rs *radixSorter[E]) sort(w *pool.Worker, lo, hi, d int, inS bool) {
	for {
		if rs.ctl.stoppedNow() {
			// Stop here: the range's elements go back to s, unsorted
			// by the digits that remain.
			rs.finish(w, lo, hi, inS)
			return
		}
		n := hi - lo
		if n <= rs.lsdMax {
			rs.lsd(lo, hi, rs.digits[d:], inS)
			return
		}
		sh := rs.digits[d]
		var start [257]int
		var moved bool
		if n >= radixParMin && w.Pool().Workers() > 1 {
			moved = rs.scatterPar(w, lo, hi, sh, inS, &start)
		} else {
			moved = rs.scatterSeq(lo, hi, sh, inS, &start)
		}
		if moved {
			inS = !inS
		}
		d++
		if d == len(rs.digits) {
			rs.finish(w, lo, hi, inS) // sorted, but maybe in buf
			return
		}
		if !moved {
			continue // all in one bucket: on to the next digit
		}
		if n < radixParMin {
			for b := 0; b < 256; b++ {
				rs.sort(w, start[b], start[b+1], d, inS)
			}
			return
		}
		// The closure gets copies, so that only they move to the heap,
		// not start, d and inS, on every call.
		st, dd, in := start, d, inS
		ForRange(w, 0, 256, func(w *pool.Worker, blo, bhi int) {
			for b := blo; b < bhi; b++ {
				rs.sort(w, st[b], st[b+1], dd, in)
			}
		}, Grain(1))
		return
	}
}

// scatterSeq moves [lo, hi) to the other slices, ordered by the digit at
// sh and otherwise in its order, and sets start[b] to where bucket b
// begins. If every key has the same digit, it moves nothing and reports
// false.
func (rs *radixSorter[E]) scatterSeq(lo, hi int, sh uint, inS bool, start *[257]int) bool {
	src, dst, ksrc, kdst := rs.ranges(inS)
	var count [256]int
	countDigits(&count, ksrc[lo:hi], sh)
	if count[(ksrc[lo]>>sh)&0xff] == hi-lo {
		return false
	}
	next := lo
	for b, c := range count {
		start[b] = next
		count[b] = next
		next += c
	}
	start[256] = hi
	moveDigits(&count, src, dst, ksrc, kdst, lo, hi, sh)
	return true
}

// countDigits adds to count the number of keys with each digit at sh:
// the scatter's first pass, over scatterSeq's range or one of
// scatterPar's pieces.
func countDigits(count *[256]int, keys []uint64, sh uint) {
	for _, k := range keys {
		count[(k>>sh)&0xff]++
	}
}

// moveDigits moves src[lo:hi] and their keys to dst and kdst, each where
// at says its digit's next place is, advancing it: the scatter's second
// pass, stable, over scatterSeq's range or one of scatterPar's pieces.
func moveDigits[E any](at *[256]int, src, dst []E, ksrc, kdst []uint64, lo, hi int, sh uint) {
	for i := lo; i < hi; i++ {
		k := ksrc[i]
		b := (k >> sh) & 0xff
		j := at[b]
		at[b]++
		dst[j] = src[i]
		kdst[j] = k
	}
}

// scatterPar is scatterSeq in parallel: every piece of the range counts
// its digits, a prefix sum over the counts, bucket by bucket and piece by
// piece, tells each piece where its elements of each bucket go, and the
// pieces move their elements at the same time.
func (rs *radixSorter[E]) scatterPar(w *pool.Worker, lo, hi int, sh uint, inS bool, start *[257]int) bool {
	src, dst, ksrc, kdst := rs.ranges(inS)
	n := hi - lo
	pieces := min(4*w.Pool().Workers(), n/radixMinPiece)
	bound := func(p int) int { return lo + int(uint64(p)*uint64(n)/uint64(pieces)) }
	counts := make([][256]int, pieces)
	ForRange(w, 0, pieces, func(_ *pool.Worker, plo, phi int) {
		for p := plo; p < phi; p++ {
			countDigits(&counts[p], ksrc[bound(p):bound(p+1)], sh)
		}
	}, Grain(1))
	first := (ksrc[lo] >> sh) & 0xff
	total := 0
	for p := range counts {
		total += counts[p][first]
	}
	if total == n {
		return false
	}
	next := lo
	for b := 0; b < 256; b++ {
		start[b] = next
		for p := range counts {
			c := counts[p][b]
			counts[p][b] = next
			next += c
		}
	}
	start[256] = hi
	ForRange(w, 0, pieces, func(_ *pool.Worker, plo, phi int) {
		for p := plo; p < phi; p++ {
			moveDigits(&counts[p], src, dst, ksrc, kdst, bound(p), bound(p+1), sh)
		}
	}, Grain(1))
	return true
}

// copyBack copies [lo, hi) from buf to s.
func (rs *radixSorter[E]) copyBack(w *pool.Worker, lo, hi int) {
	if hi-lo < radixParMin {
		copy(rs.s[lo:hi], rs.buf[lo:hi])
		return
	}
	ForRange(w, lo, hi, func(_ *pool.Worker, lo, hi int) {
		copy(rs.s[lo:hi], rs.buf[lo:hi])
	}, Grain(radixMinPiece))
}

// lsd sorts [lo, hi) by the digits at shifts ds (most significant first),
// sequentially, least significant digit first, skipping the digits in
// which all its keys agree, and leaves it in s.
func (rs *radixSorter[E]) lsd(lo, hi int, ds []uint, inS bool) {
	n := hi - lo
	src, dst, ksrc, kdst := rs.ranges(inS)
	switch {
	case n < 2 || len(ds) == 0:
	case n <= radixInsertionMax:
		// A stable insertion sort on the whole keys: they agree in
		// every bit above ds and in every bit no digit covers.
		es, ks := src[lo:hi], ksrc[lo:hi]
		for i := 1; i < len(es); i++ {
			e, k := es[i], ks[i]
			j := i
			for ; j > 0 && ks[j-1] > k; j-- {
				es[j], ks[j] = es[j-1], ks[j-1]
			}
			es[j], ks[j] = e, k
		}
	default:
		// One counting pass for all digits; n < 2^32.
		var counts [8][256]uint32
		for _, k := range ksrc[lo:hi] {
			for j, sh := range ds {
				counts[j][(k>>sh)&0xff]++
			}
		}
		for j := len(ds) - 1; j >= 0; j-- {
			sh, c := ds[j], &counts[j]
			if c[(ksrc[lo]>>sh)&0xff] == uint32(n) {
				continue
			}
			next := uint32(0)
			for b, x := range c {
				c[b] = next
				next += x
			}
			d, kd := dst[lo:hi], kdst[lo:hi]
			for i, k := range ksrc[lo:hi] {
				b := (k >> sh) & 0xff
				at := c[b]
				c[b]++
				d[at] = src[lo+i]
				kd[at] = k
			}
			src, dst, ksrc, kdst = dst, src, kdst, ksrc
			inS = !inS
		}
	}
	if !inS {
		copy(rs.s[lo:hi], rs.buf[lo:hi])
	}
	if rs.clear { // done, for a range short enough to clear here
		clear(rs.buf[lo:hi])
	}
}

const (
	// radixInsertionMax is the longest range sorted by insertion: below
	// it, a counting pass per digit costs more than the moves.
	radixInsertionMax = 32

	// radixCacheBytes bounds, with the size of an element plus its key,
	// the ranges sorted by lsd, so that their passes run from a core's
	// cache, not from memory. A MiB (both copies of a range) measured
	// better than half of it on 4M 32-byte records: the smaller bound
	// splits the buckets once more, into pieces too short to pay for the
	// counts of an LSD pass.
	radixCacheBytes = 1 << 20

	// radixSeqMax is the longest slice sorted on the calling goroutine.
	radixSeqMax = 1 << 12

	// radixParMin is the shortest range whose digits are counted and moved
	// by several workers, and whose buckets are sorted in parallel.
	radixParMin = 1 << 16

	// radixMinPiece is the shortest piece of a parallel pass.
	radixMinPiece = 1 << 13
)
