package sched

import (
	"os"
	"runtime"
	"sync/atomic"

	gid "github.com/petermattis/goid"
)

// Goroutine identity: "is the calling goroutine running a task of this
// pool, and on which worker?", answered in nanoseconds. identity.md next
// to this file states the protocol (steps I1-I6) and argues why an answer
// is never wrong; the comments here cite its steps.

// holders is a pool's table of the goroutines that hold its workers: at
// most one per worker (the holding carrier, carrier.go), so at most n
// entries. An entry packs a goroutine id and a worker index,
// uint64(g)<<16 | id; 0 is an empty slot (goroutine ids start at 1).
//
// A goroutine's entry lives in one of two buckets of four slots, chosen by
// two hashes of its id (I2). Only the goroutine itself writes its entry
// (I3) and only it asks about itself (I4), so a lookup reads at most eight
// slots, whatever the number of workers, the depth of the stack or what
// other goroutines do meanwhile.
type holders struct {
	buckets []holderBucket
	bits    uint8 // len(buckets) == 1 << bits
	// overflow counts holders that found both their buckets full, or
	// whose id does not fit the packing (I5); while it is non-zero,
	// lookups that miss scan the workers. With 4 slots per worker it
	// stays zero in practice.
	overflow atomic.Int64
}

type holderBucket [bucketSlots]atomic.Uint64

const bucketSlots = 4

// goidFast tells whether goid reads the id from the runtime's g (about a
// nanosecond) or parses the header of runtime.Stack (microseconds, more on
// a deep stack). It is set once, before any pool exists (I1), and so is
// readGoid, the function that does it.
var goidFast = verifyGoid()

// goid returns the id of the calling goroutine: a predictable branch and a
// call, small enough that the checks that use it are inlined.
func goid() int64 {
	if goidFast {
		return gid.Get()
	}
	return stackGoid()
}

// Goid returns the calling goroutine's id (see goid).
func Goid() int64 { return goid() }

// verifyGoid is step I1: it compares the fast id with the runtime.Stack
// header on this goroutine and on a new one, and reports whether fj may
// trust the fast one. A Go release that moves the id in its g struct
// makes them differ, and fj then parses stacks: slower, never wrong. The
// environment variable FJ_GOID=stack forces the slow path (tests use it).
// On a platform where goid has no fast read (it has one on 386, amd64,
// arm, arm64 and s390x with the gc compiler: an assembly stub), its Get
// parses stacks itself, and the answer is false without asking: the fork
// path's check calls Get only when goidFast is set (debug.go).
func verifyGoid() bool {
	if os.Getenv("FJ_GOID") == "stack" || !goidAsm() {
		return false
	}
	if gid.Get() != stackGoid() {
		return false
	}
	ok := make(chan bool)
	go func() { ok <- gid.Get() == stackGoid() }()
	return <-ok
}

// goidAsm reports whether goid reads the id with its assembly stub on
// this platform (the build constraint of the stub in its module).
func goidAsm() bool {
	if runtime.Compiler != "gc" {
		return false
	}
	switch runtime.GOARCH {
	case "386", "amd64", "arm", "arm64", "s390x":
		return true
	}
	return false
}

// stackGoid returns the calling goroutine's id from the header line
// ("goroutine 123 [running]:") that runtime.Stack writes first.
func stackGoid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return -1
	}
	var id int64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}

// maxPackedGoid bounds the ids that fit an entry beside a 16-bit worker
// index (maxWorkers is 1<<16).
const maxPackedGoid = 1 << 47

func (h *holders) init(workers int) {
	b := uint8(0)
	for 1<<b < workers {
		b++
	}
	h.bits = b
	h.buckets = make([]holderBucket, 1<<b)
}

// bucketsOf returns g's two buckets (I2): Fibonacci hashing with two
// multipliers; ids are handed out nearly sequentially, and the
// multiplication spreads them over the table. With one bucket, both are
// that one.
func (h *holders) bucketsOf(g int64) (*holderBucket, *holderBucket) {
	if h.bits == 0 {
		return &h.buckets[0], &h.buckets[0]
	}
	u := uint64(g)
	i := (u * 0x9E3779B97F4A7C15) >> (64 - h.bits)
	j := (u * 0xC2B2AE3D27D4EB4F) >> (64 - h.bits)
	if j == i {
		j ^= 1
	}
	return &h.buckets[i], &h.buckets[j]
}

// probes counts the slots lookups read, for the test that bounds them.
// It is written only while countProbes is set (tests).
var (
	countProbes bool
	probes      atomic.Int64
)

// register is step I3: c's goroutine, which has just been handed w,
// enters itself in the table. Only that goroutine calls it, and only that
// goroutine removes the entry (unregister), so the slot it claims by CAS
// holds this entry until then.
func (w *Worker) register(c *carrier) {
	w.holder.Store(c.goid)
	h := &w.pool.holders
	if c.goid > 0 && c.goid < maxPackedGoid {
		v := uint64(c.goid)<<16 | uint64(w.id)
		b1, b2 := h.bucketsOf(c.goid)
		for _, b := range [2]*holderBucket{b1, b2} {
			for i := range b {
				// Sequentially consistent CAS: two goroutines that
				// want the same empty slot cannot both have it.
				if b[i].Load() == 0 && b[i].CompareAndSwap(0, v) {
					c.slot = &b[i]
					return
				}
			}
		}
	}
	// I5: no room (or an id too large to pack). Lookups that miss scan
	// the workers' holder fields while any such entry exists.
	c.overflowed = true
	h.overflow.Add(1)
}

// unregister undoes register, on c's goroutine, before c hands w to
// another carrier or exits: after it, neither the table nor w.holder says
// that c's goroutine holds w, so code it runs while it does not hold a
// worker (a blocking section, a deferred call on the way out) is not
// mistaken for a task of the pool.
func (w *Worker) unregister(c *carrier) {
	w.dropEntry(c)
	if !w.holder.CompareAndSwap(c.goid, 0) && w.holder.Load() == -c.goid {
		// The monitor is deciding a hand-over of w over c's head
		// (stall.md, Y2-Y4), under hmu: wait for it, then clear the
		// word if the decision gave it back.
		w.hmu.Lock()
		w.holder.CompareAndSwap(c.goid, 0)
		w.hmu.Unlock()
	}
}

// dropEntry removes c's entry from the holders table, on c's goroutine,
// and leaves w.holder alone: unregister's first half, and all of it for a
// displaced carrier reclaiming w (stall.md, Y5), whose worker is another
// goroutine's, or is still marked -g by the hand-over (Y2) until the
// carrier handed w registers, while reclaim holds hmu.
func (w *Worker) dropEntry(c *carrier) {
	if c.slot != nil {
		c.slot.Store(0)
		c.slot = nil
	}
	if c.overflowed {
		c.overflowed = false
		w.pool.holders.overflow.Add(-1)
	}
}
