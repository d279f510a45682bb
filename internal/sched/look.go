package sched

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The look (stall.md, L1-L4): is the goroutine holding a worker blocked,
// or does it run? The runtime keeps the answer in the goroutine's g, in
// its status word (atomicstatus) and the reason it waits (waitreason),
// and the goroutine that holds a worker can hand out a pointer to its own
// g, as github.com/petermattis/goid reads the goroutine id. Neither field
// is public, so fj finds their offsets at start-up against goroutines it
// puts in known states (L1), and every look validates what it read (L3).
// Where that fails, the monitor falls back to runtime.Stack (stall.go).

// The runtime's goroutine states that L3 tells apart, which every Go
// release since 1.0 has kept (runnable is 1, preempted 9: neither is
// blocked): a status word reads one of them, with gScanBit set while the
// garbage collector scans the goroutine's stack.
const (
	gRunning = 2
	gSyscall = 3
	gWaiting = 4
	gScanBit = 0x1000
)

// gSpan bounds the offsets L1 searches: the fields fj reads sit in the
// first 200 bytes of every g since Go 1.5, and a g is larger than this.
const gSpan = 256

// gLayout is what L1 found: where a g keeps its id, its status and its
// wait reason, and which wait reasons mean a wait in the program's code.
type gLayout struct {
	ok         bool
	goidOff    uintptr
	statusOff  uintptr
	reasonOff  uintptr // valid where reasons is non-nil
	bigEndian  bool
	reasons    []string // by value, this release's names, or nil: unknown
	userReason [256]bool
}

var (
	layoutOnce sync.Once
	layout     gLayout
)

// gLook returns the layout, found once (L1), before the first pool's
// monitor can look.
func gLook() *gLayout {
	layoutOnce.Do(func() { layout = findLayout() })
	return &layout
}

// The helpers of L1 and a read of one field of a g. They read the
// runtime's memory through a pointer the runtime does not hand out:
// checkptr, which the race detector turns on, cannot tell the g's
// allocation (some are not on the heap), hence nocheckptr. Every read is
// atomic, of an aligned word: the runtime writes these fields with
// atomics (the status) or plain aligned stores (the id, the reason), and
// a word is never torn.

//go:nocheckptr
func gWord32(g unsafe.Pointer, off uintptr) uint32 {
	return (*atomic.Uint32)(unsafe.Add(g, off)).Load()
}

//go:nocheckptr
func gWord64(g unsafe.Pointer, off uintptr) uint64 {
	return (*atomic.Uint64)(unsafe.Add(g, off)).Load()
}

// gByte reads the byte at off through the aligned word holding it.
func (l *gLayout) gByte(g unsafe.Pointer, off uintptr) uint8 {
	w := gWord32(g, off&^3)
	sh := (off & 3) * 8
	if l.bigEndian {
		sh = 24 - sh
	}
	return uint8(w >> sh)
}

// gState is one look's answer (L3).
type gState struct {
	blocked bool   // waiting in the program's code, or in a system call
	reason  string // what it waits for, if known ("chan receive")
}

// look is L3: the state of the goroutine whose g is g and whose id should
// be id. The id is read before and after the status and the reason: a g
// is reused once its goroutine exits, and a goroutine id is never reused,
// so equal ids on both sides mean that the words in between were that
// goroutine's. ok is false when they were not (the holder has gone).
func (l *gLayout) look(gh *gHandle, id int64) (s gState, ok bool) {
	g := unsafe.Pointer(gh)
	if g == nil || int64(gWord64(g, l.goidOff)) != id {
		return s, false
	}
	st := gWord32(g, l.statusOff) &^ gScanBit
	var r uint8
	if l.reasons != nil {
		r = l.gByte(g, l.reasonOff)
	}
	if int64(gWord64(g, l.goidOff)) != id {
		return s, false
	}
	switch st {
	case gSyscall:
		return gState{blocked: true, reason: "system call"}, true
	case gWaiting:
		if l.reasons == nil {
			return gState{blocked: true}, true
		}
		// Waits of the runtime's own (a GC assist, a stack scan) are
		// brief and run the program's code again by themselves: not
		// blocked.
		if int(r) < len(l.reasons) && l.userReason[r] {
			return gState{blocked: true, reason: l.reasons[r]}, true
		}
	}
	return s, true
}

// waitReasons126 is the runtime's list of wait reasons (waitReasonStrings
// in the runtime's source, Go 1.25 and 1.26), by value. L1 checks it against the
// reasons of goroutines parked on purpose; a release that reorders it
// fails that check, and every wait counts as blocked (with no name).
var waitReasons126 = []string{
	"", "GC assist marking", "IO wait", "dumping heap", "garbage collection",
	"garbage collection scan", "panicwait", "GC assist wait", "GC sweep wait",
	"GC scavenge wait", "finalizer wait", "force gc (idle)", "GOMAXPROCS updater (idle)",
	"semacquire", "sleep", "chan receive (nil chan)", "chan send (nil chan)",
	"select (no cases)", "select", "chan receive", "chan send", "sync.Cond.Wait",
	"sync.Mutex.Lock", "sync.RWMutex.RLock", "sync.RWMutex.Lock", "sync.WaitGroup.Wait",
}

// userWaits are the waits in the program's code: what a task blocked
// without a section sits in (L2).
//
// Not "semacquire": the runtime waits so to start a collection or to stop
// the world while another goroutine does (a CPU-bound task that
// allocates), which ends by itself; the program's semaphores (sync's
// types) have reasons of their own.
var userWaits = []string{
	"IO wait", "sleep", "chan receive (nil chan)", "chan send (nil chan)",
	"select (no cases)", "select", "chan receive", "chan send", "sync.Cond.Wait",
	"sync.Mutex.Lock", "sync.RWMutex.RLock", "sync.RWMutex.Lock", "sync.WaitGroup.Wait",
}

// findLayout is L1. It reports ok only if every check passed.
func findLayout() (l gLayout) {
	if !goidFast || !goidAsm() {
		return l
	}
	var probe uint32 = 1
	l.bigEndian = *(*byte)(unsafe.Pointer(&probe)) == 0
	self := getg()
	if self == nil {
		return l
	}
	// Helpers parked in known states: two receivers, a sender, a
	// select, a sync.Cond and a sync.Mutex waiter. They publish their g
	// and id, then park; release ends them all.
	type helper struct {
		g      unsafe.Pointer
		id     int64
		reason string
	}
	recv, send, release := make(chan int), make(chan int), make(chan struct{})
	var mu, cmu sync.Mutex
	cond := sync.NewCond(&cmu)
	condDone := false
	mu.Lock()
	hs := make(chan helper)
	var wg sync.WaitGroup
	spawn := func(reason string, park func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs <- helper{getg(), goid(), reason}
			park()
		}()
	}
	spawn("chan receive", func() { <-recv })
	spawn("chan receive", func() { <-recv })
	spawn("chan send", func() { send <- 1 })
	spawn("select", func() {
		select {
		case <-recv:
		case <-release:
		}
	})
	spawn("sync.Cond.Wait", func() {
		cmu.Lock()
		for !condDone {
			cond.Wait()
		}
		cmu.Unlock()
	})
	passed := 0 // under mu: the waiter's critical section
	spawn("sync.Mutex.Lock", func() { mu.Lock(); passed++; mu.Unlock() })
	var helpers []helper
	for range 6 {
		helpers = append(helpers, <-hs)
	}
	defer func() {
		mu.Unlock()
		cmu.Lock()
		condDone = true
		cond.Broadcast()
		cmu.Unlock()
		close(release)
		close(recv)
		<-send
		wg.Wait()
	}()

	// find returns the first offset from start, in steps of step, at
	// which this goroutine's g reads as mine wants and every helper's as
	// theirs wants, or none.
	const none = ^uintptr(0)
	find := func(start, step uintptr, mine func(off uintptr) bool, theirs func(h helper, off uintptr) bool) uintptr {
		for off := start; off < gSpan; off += step {
			if !mine(off) {
				continue
			}
			all := true
			for _, h := range helpers {
				all = all && theirs(h, off)
			}
			if all {
				return off
			}
		}
		return none
	}

	// The id: an 8-byte word that holds each goroutine's own id.
	l.goidOff = find(0, 8,
		func(off uintptr) bool { return int64(gWord64(self, off)) == goid() },
		func(h helper, off uintptr) bool { return int64(gWord64(h.g, off)) == h.id })
	if l.goidOff == none {
		return l
	}
	// The status: a word that reads running on this goroutine and
	// waiting on every helper, once they have parked (a helper is
	// runnable or running for a moment after its send; wait for that to
	// pass, but not for ever).
	l.statusOff = none
	for end := time.Now().Add(time.Second); l.statusOff == none && time.Now().Before(end); {
		runtime.Gosched()
		l.statusOff = find(0, 4,
			func(off uintptr) bool { return gWord32(self, off) == gRunning },
			func(h helper, off uintptr) bool { return gWord32(h.g, off)&^gScanBit == gWaiting })
	}
	if l.statusOff == none {
		return l
	}
	// The one status word, checked again on a goroutine that runs: the
	// helper reads itself.
	ran := make(chan bool)
	go func() {
		g := getg()
		ran <- gWord32(g, l.statusOff) == gRunning && int64(gWord64(g, l.goidOff)) == goid()
	}()
	if !<-ran {
		return l
	}
	l.ok = true
	// The reason: a byte past the status at which each helper reads the
	// value of its reason in waitReasons126. Optional: without it, every
	// wait counts.
	off := find(l.statusOff+4, 1,
		func(uintptr) bool { return true },
		func(h helper, off uintptr) bool {
			v := l.gByte(h.g, off)
			return int(v) < len(waitReasons126) && waitReasons126[v] == h.reason
		})
	if off != none {
		l.reasonOff, l.reasons = off, waitReasons126
		for i, name := range waitReasons126 {
			for _, u := range userWaits {
				if name == u {
					l.userReason[i] = true
				}
			}
		}
	}
	return l
}

// lookHolder is L2 and L3 for w, whose mark and holder the caller just
// loaded: blocked means that g, in a task, waits in the program's code.
// A holder that is not in a task (searching, asleep: its sleep state
// says which) or whose goroutine is gone is not blocked.
func (p *Pool) lookHolder(l *gLayout, w *remote, mark, g int64) (gState, bool) {
	if g == 0 || mark&runningMask == 0 || w.sleepState.Load() != awake {
		return gState{}, false
	}
	b := w.barriers.Load()
	st, ok := l.look(w.holderG.Load(), g)
	// The holder again, after the look: a carrier that handed w over
	// meanwhile (parked in a join, entered a section) waits in fj's
	// code, not the program's; one searching between tasks (its task
	// parked) may have been in the heavy barrier's system call (odd
	// barriers, or a barrier since the first load).
	if !ok || w.holder.Load() != g || w.sleepState.Load() != awake || b&1 != 0 || w.barriers.Load() != b {
		return gState{}, false
	}
	return st, true
}
