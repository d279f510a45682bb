package sched

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The look (stall.md, V1-V5): is the goroutine holding a worker waiting
// in the program's own code, and has it waited there without a break
// since the last look? The runtime keeps the answer in the goroutine's g:
// its status word (atomicstatus), the reason it waits (waitreason) and a
// count of its leaves from running (trackingSeq, kept for the
// scheduler's latency metrics). None is public, so fj finds their offsets
// at start-up against goroutines it parks in known waits (V1), and every
// look validates what it read (V4). Where that fails, nothing is looked
// at, and the pool watches nothing (stall.md, Limits).

// The runtime's goroutine states that V4 tells apart, which every Go
// release since 1.0 has kept: a status word reads one of them, with
// gScanBit set while the garbage collector scans the goroutine's stack.
const (
	gRunning = 2
	gWaiting = 4
	gScanBit = 0x1000
)

// gSpan bounds the offsets V1 searches: the fields fj reads sit in the
// first 256 bytes of every g since Go 1.17, and a g is larger than this.
const gSpan = 256

// gLayout is what V1 found: where a g keeps its id, its status, its wait
// reason and its count of leaves from running, and which reasons are
// waits of the program's code, by value, with their names.
type gLayout struct {
	ok        bool
	goidOff   uintptr
	statusOff uintptr
	reasonOff uintptr
	seqOff    uintptr
	bigEndian bool
	userWait  [256]string
}

// gHandle is a runtime g, as fj holds a pointer to one: opaque, read only
// through the layout's reads.
type gHandle struct{}

var (
	layoutOnce sync.Once
	layout     gLayout
)

// gLook returns the layout, found once (V1), before the first pool's
// monitor can look.
func gLook() *gLayout {
	layoutOnce.Do(func() { layout = findLayout() })
	return &layout
}

// gWord32 reads the aligned 32-bit word at off in g. It reads the
// runtime's memory through a pointer the runtime does not hand out:
// checkptr, which the race detector turns on, cannot tell the g's
// allocation (some are not on the heap), hence nocheckptr. The read is
// atomic: the runtime writes these fields with atomics (the status) or
// plain aligned stores (the id, the reason, the count), and a word is
// never torn.
//
//go:nocheckptr
func gWord32(g unsafe.Pointer, off uintptr) uint32 {
	return (*atomic.Uint32)(unsafe.Add(g, off)).Load()
}

// gID reads the 64-bit id at off as two 32-bit words: on a 32-bit
// platform the id may sit at an offset of 4 mod 8, where a 64-bit atomic
// load faults. An id never changes while its goroutine lives; a g reused
// meanwhile is caught by V4's second read.
func (l *gLayout) gID(g unsafe.Pointer, off uintptr) int64 {
	lo, hi := gWord32(g, off), gWord32(g, off+4)
	if l.bigEndian {
		lo, hi = hi, lo
	}
	return int64(uint64(hi)<<32 | uint64(lo))
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

// gWait is one look's answer (V4): the goroutine waits in the program's
// code, in wait, and seq is its count of leaves from running (V5).
type gWait struct {
	wait string
	seq  uint8
}

// look is V4's read of goroutine id's g: its wait, and true, if it waits
// in the program's code. The id is read before and after the status,
// reason and count: a g is reused once its goroutine exits, and an id
// never is, so equal ids on both sides mean that the words in between
// were that goroutine's.
func (l *gLayout) look(gh *gHandle, id int64) (gWait, bool) {
	g := unsafe.Pointer(gh)
	if g == nil || l.gID(g, l.goidOff) != id {
		return gWait{}, false
	}
	st := gWord32(g, l.statusOff) &^ gScanBit
	r := l.gByte(g, l.reasonOff)
	seq := l.gByte(g, l.seqOff)
	if l.gID(g, l.goidOff) != id || st != gWaiting || l.userWait[r] == "" {
		return gWait{}, false
	}
	return gWait{wait: l.userWait[r], seq: seq}, true
}

// lookHolder is V4 for w, whose mark and holder word the caller just
// loaded: the wait of g, w's holder, and true, if g runs one of w's tasks
// and waits in the program's code, not in fj's (V3). word is what w's
// holder word must read meanwhile: g, or -g while a hand-over decides
// (Y3).
func (l *gLayout) lookHolder(w *remote, mark, g, word int64) (gWait, bool) {
	if !l.ok || g <= 0 || mark&runningMask == 0 || w.sleepState.Load() != awake {
		return gWait{}, false
	}
	f := w.fjWaits.Load()
	s, ok := l.look(w.holderG.Load(), g)
	// V3: fjWaits even and unchanged around the status load, so the
	// wait is not one of fj's; the holder word again, so that g held w
	// throughout.
	if !ok || f&1 != 0 || w.fjWaits.Load() != f || w.holder.Load() != word || w.sleepState.Load() != awake {
		return gWait{}, false
	}
	return s, true
}

// waitReasons is the runtime's list of wait reasons (waitReasonStrings
// in its source, Go 1.23 to 1.26), by value. V1 uses it only where it
// agrees with every reason learnt from the helpers: then its other waits
// of the program's (userWaits) count too.
var waitReasons = []string{
	"", "GC assist marking", "IO wait", "dumping heap", "garbage collection",
	"garbage collection scan", "panicwait", "GC assist wait", "GC sweep wait",
	"GC scavenge wait", "finalizer wait", "force gc (idle)", "GOMAXPROCS updater (idle)",
	"semacquire", "sleep", "chan receive (nil chan)", "chan send (nil chan)",
	"select (no cases)", "select", "chan receive", "chan send", "sync.Cond.Wait",
	"sync.Mutex.Lock", "sync.RWMutex.RLock", "sync.RWMutex.Lock", "sync.WaitGroup.Wait",
}

// userWaits are the waits of the program's code that V1 cannot park a
// helper in (they never end, or take a clock or a socket), counted where
// waitReasons holds.
var userWaits = []string{"IO wait", "sleep", "chan receive (nil chan)", "chan send (nil chan)", "select (no cases)"}

// findLayout is V1. It reports ok only if every check passed.
func findLayout() (l gLayout) {
	if !goidFast || !goidAsm() {
		return l
	}
	var probe uint32 = 1
	l.bigEndian = *(*byte)(unsafe.Pointer(&probe)) == 0
	self := unsafe.Pointer(getg())
	if self == nil {
		return l
	}
	h := startHelpers()
	defer h.stop()
	const none = ^uintptr(0)
	// find returns the first offset from start, in steps of step, at
	// which this goroutine's g reads as mine wants and every helper's as
	// theirs wants, or none.
	find := func(start, step uintptr, mine func(off uintptr) bool, theirs func(x *helper, off uintptr) bool) uintptr {
		for off := start; off+8 <= gSpan; off += step {
			if !mine(off) {
				continue
			}
			all := true
			for _, x := range h.all {
				all = all && theirs(x, off)
			}
			if all {
				return off
			}
		}
		return none
	}
	// The id: the word at which every goroutine reads its own id.
	if l.goidOff = find(0, 4,
		func(off uintptr) bool { return l.gID(self, off) == goid() },
		func(x *helper, off uintptr) bool { return l.gID(x.g, off) == x.id }); l.goidOff == none {
		return l
	}
	// The status: running here, waiting on every helper once parked.
	deadline := time.Now().Add(time.Second)
	for l.statusOff = none; l.statusOff == none && time.Now().Before(deadline); {
		runtime.Gosched()
		l.statusOff = find(0, 4,
			func(off uintptr) bool { return gWord32(self, off) == gRunning },
			func(x *helper, off uintptr) bool { return gWord32(x.g, off)&^gScanBit == gWaiting })
	}
	if l.statusOff == none {
		return l
	}
	// The reason: one value per kind of wait, a different one per kind.
	for off := l.statusOff + 4; off < l.statusOff+64 && l.reasonOff == 0; off++ {
		if names, ok := h.reasons(&l, off); ok {
			l.reasonOff = off
			l.userWait = names
		}
	}
	if l.reasonOff == 0 {
		return l
	}
	// The count of leaves from running: one more per wait.
	if l.seqOff = h.counter(&l, l.reasonOff+1); l.seqOff == none {
		return l
	}
	// Checked again on a goroutine that runs: it reads itself running,
	// with its own id.
	ran := make(chan bool)
	go func() {
		g := unsafe.Pointer(getg())
		ran <- gWord32(g, l.statusOff) == gRunning && l.gID(g, l.goidOff) == goid()
	}()
	l.ok = <-ran
	return l
}

// helper is a goroutine of V1's, parked in a known kind of wait.
type helper struct {
	g    unsafe.Pointer
	id   int64
	kind string
}

// helpers are V1's goroutines: one in each kind of wait that the
// program's code makes and fj can end, and two that count (counter), in
// channel receives too.
type helpers struct {
	all  []*helper
	stop func()
	// The counting helpers wait on tick[i], once per value sent, and
	// answer on ack[i] (buffered: the answer never waits).
	tick, ack [2]chan struct{}
	counting  [2]*helper
}

func startHelpers() *helpers {
	h := &helpers{}
	recv, send, release := make(chan int), make(chan int), make(chan struct{})
	var mu, cmu sync.Mutex
	var rw, rws sync.RWMutex
	var wg, done sync.WaitGroup
	cond, condDone := sync.NewCond(&cmu), false
	mu.Lock()
	rw.RLock() // the writer below waits for this reader
	rws.Lock() // the reader below waits for this writer
	wg.Add(1)
	ready := make(chan *helper)
	// spawn starts a helper and returns it once it has published its g;
	// it parks soon after (findLayout waits for that).
	spawn := func(kind string, park func()) *helper {
		done.Add(1)
		go func() {
			defer done.Done()
			ready <- &helper{unsafe.Pointer(getg()), goid(), kind}
			park()
		}()
		x := <-ready
		h.all = append(h.all, x)
		return x
	}
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
	var passed atomic.Int32 // the lock waiters that got their lock
	spawn("sync.Mutex.Lock", func() { mu.Lock(); passed.Add(1); mu.Unlock() })
	spawn("sync.RWMutex.Lock", func() { rw.Lock(); passed.Add(1); rw.Unlock() })
	spawn("sync.RWMutex.RLock", func() { rws.RLock(); passed.Add(1); rws.RUnlock() })
	spawn("sync.WaitGroup.Wait", wg.Wait)
	for i := range h.counting {
		tick, ack := make(chan struct{}), make(chan struct{}, 1)
		h.tick[i], h.ack[i] = tick, ack
		h.counting[i] = spawn("chan receive", func() {
			for range tick {
				ack <- struct{}{}
			}
		})
	}
	h.stop = func() {
		mu.Unlock()
		rw.RUnlock()
		rws.Unlock()
		wg.Done()
		cmu.Lock()
		condDone = true
		cond.Broadcast()
		cmu.Unlock()
		close(release)
		close(recv)
		<-send
		for _, t := range h.tick {
			close(t)
		}
		done.Wait()
	}
	return h
}

// reasons reports whether off is where the helpers keep their wait
// reason (V1): helpers of one kind read one value there, of different
// kinds different ones, and none reads 0 (no wait). It returns the names
// of the program's waits by value: those learnt, and, where the
// release's list agrees with each of them, the list's other waits of the
// program's (userWaits).
func (h *helpers) reasons(l *gLayout, off uintptr) (names [256]string, ok bool) {
	byKind := map[string]uint8{}
	for _, x := range h.all {
		v := l.gByte(x.g, off)
		if u, seen := byKind[x.kind]; v == 0 || (seen && u != v) || (!seen && names[v] != "") {
			return names, false
		}
		byKind[x.kind], names[v] = v, x.kind
	}
	agree := true
	for kind, v := range byKind {
		agree = agree && int(v) < len(waitReasons) && waitReasons[v] == kind
	}
	if agree {
		for v, name := range waitReasons {
			for _, u := range userWaits {
				if name == u {
					names[v] = name
				}
			}
		}
	}
	return names, true
}

// counter returns the first offset from start at which the counting
// helpers read a byte that grows by exactly k when they wait k more times
// (3 for the first, 5 for the second: V1), or none. A helper preempted
// meanwhile leaves running once more: the rounds are tried again.
func (h *helpers) counter(l *gLayout, start uintptr) uintptr {
	const none, span = ^uintptr(0), 40
	for range 4 {
		var moved [2][span]uint8
		for i, x := range h.counting {
			var before [span]uint8
			for o := range before {
				before[o] = l.gByte(x.g, start+uintptr(o))
			}
			for range 3 + 2*i {
				h.tick[i] <- struct{}{}
				<-h.ack[i]
				if !h.parkedIn(l, x) {
					return none
				}
			}
			for o := range before {
				moved[i][o] = l.gByte(x.g, start+uintptr(o)) - before[o]
			}
		}
		for o := range moved[0] {
			if moved[0][o] == 3 && moved[1][o] == 5 && start+uintptr(o)+4 <= gSpan {
				return start + uintptr(o)
			}
		}
	}
	return none
}

// parkedIn waits, a second at most, for x to wait in its channel receive
// again, and reports whether it does.
func (h *helpers) parkedIn(l *gLayout, x *helper) bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); runtime.Gosched() {
		if gWord32(x.g, l.statusOff)&^gScanBit == gWaiting && l.userWait[l.gByte(x.g, l.reasonOff)] == x.kind {
			return true
		}
	}
	return false
}

// Lock is a mutex for fj's own code (V3): its Lock, where it must wait,
// marks the worker the calling goroutine holds, if any, as waiting in
// fj's code, so that the look never takes that wait for a task's. Every
// lock that fj's code may take while holding a worker is a Lock (the
// injector's buckets, a worker's hmu, the loops' and task blocks' error
// records). The zero value is unlocked.
type Lock struct{ sync.Mutex }

// Lock locks l; see Lock.
func (l *Lock) Lock() {
	if l.TryLock() {
		return
	}
	w := heldWorker()
	if w != nil {
		w.fjWaits.Add(1) // V3: odd while waiting, sequentially consistent
	}
	l.Mutex.Lock()
	if w != nil {
		w.fjWaits.Add(1)
	}
}
