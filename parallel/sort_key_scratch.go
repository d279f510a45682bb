package parallel

import (
	"math"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/forkjoin/fj/internal/sched"
)

// SortByKey's scratch memory, the cache that keeps it between calls,
// and the arenas outside the Go heap that large scratches live in. The
// design note sort_key_scratch.md states the protocol as steps K1-K9,
// and argues why no scratch or arena is lost or used by two calls at
// once; the code cites its steps.

// keyScratch is the scratch memory of a SortByKey call: buf, a buffer at
// least as long as the slice, and keys, the keys and their buffer (twice
// len(buf) uint64).
type keyScratch[E any] struct {
	buf   []E
	keys  []uint64
	cache *scratchCache[E]
	// fresh is set on a scratch that its call allocated: its pages have
	// not been touched yet (K3).
	fresh bool
	// idleGCs counts the collections the scratch has spent in the cache
	// (K2).
	idleGCs int
	// arena is the mapping buf and keys lie in (K5), nil if they are on
	// the heap.
	arena *arena
}

// arena is memory outside the Go heap for the scratches of elements
// without pointers (K5).
type arena struct {
	mem  []byte
	idle time.Time // when it became idle (K7)
}

const (
	// arenaMin is the smallest scratch, in bytes, put in an arena.
	arenaMin = 1 << 20
	// arenaKeep is the most arenas kept idle (K7).
	arenaKeep = 2
	// arenaTTL is how long an arena is kept idle (K7).
	arenaTTL = time.Minute
)

// arenas holds the idle arenas (K6, K7), and the timer that unmaps them,
// set while some arena is idle.
var arenas struct {
	mu    sched.Lock // fj's own: a holder waiting in it is no stall
	idle  []*arena
	timer *time.Timer
}

// scratchCache holds the scratches that calls on elements of type E have
// given back (K1).
type scratchCache[E any] struct {
	mu   sched.Lock // fj's own: a holder waiting in it is no stall
	idle []*keyScratch[E]
	// pointers is set if E holds pointers (K4).
	pointers bool
}

// scratchSweeper is what gcClock and freeArenas see of a scratchCache
// of any type.
type scratchSweeper interface {
	// sweep ages the idle scratches by one collection, drops those that
	// have been idle for two, and reports whether any are left.
	sweep() bool
	// dropArenas drops the idle scratches that lie in an arena.
	dropArenas()
}

// scratchCaches maps an element type (a reflect.Type) to its
// *scratchCache.
var scratchCaches sync.Map

// takeScratch returns a scratch for a slice of n elements: from E's
// cache if it holds one long enough (K1), else a fresh one, in an arena
// if E has no pointers and the scratch is large (K5).
func takeScratch[E any](n int) *keyScratch[E] {
	t := reflect.TypeFor[E]()
	v, ok := scratchCaches.Load(t)
	if !ok {
		v, _ = scratchCaches.LoadOrStore(t, &scratchCache[E]{pointers: hasPointers(t)})
	}
	c := v.(*scratchCache[E])
	c.mu.Lock()
	for i := len(c.idle) - 1; i >= 0; i-- {
		if sc := c.idle[i]; len(sc.buf) >= n {
			copy(c.idle[i:], c.idle[i+1:])
			c.idle[len(c.idle)-1] = nil
			c.idle = c.idle[:len(c.idle)-1]
			c.mu.Unlock()
			return sc
		}
	}
	c.mu.Unlock()
	if size := int(unsafe.Sizeof(*new(E))); !c.pointers && size > 0 && n*(size+16) >= arenaMin {
		if a, fresh := takeArena(n * (size + 16)); a != nil {
			// K5: the keys first, at the arena's start (page-aligned),
			// then buf, at a multiple of 8 bytes.
			p := unsafe.Pointer(unsafe.SliceData(a.mem))
			return &keyScratch[E]{
				buf:   unsafe.Slice((*E)(unsafe.Add(p, 16*n)), n),
				keys:  unsafe.Slice((*uint64)(p), 2*n),
				cache: c,
				fresh: fresh,
				arena: a,
			}
		}
	}
	return &keyScratch[E]{buf: make([]E, n), keys: make([]uint64, 2*n), cache: c, fresh: true}
}

// takeArena returns an arena of at least n bytes: the shortest idle one
// long enough (not fresh: its pages may be mapped still, with anything in
// them), or a fresh mapping (zero, no page mapped yet), or nil if the
// system has none to give (K5).
func takeArena(n int) (a *arena, fresh bool) {
	arenas.mu.Lock()
	best := -1
	for i, x := range arenas.idle {
		if len(x.mem) >= n && (best < 0 || len(x.mem) < len(arenas.idle[best].mem)) {
			best = i
		}
	}
	if best >= 0 {
		a = arenas.idle[best]
		arenas.idle = slices.Delete(arenas.idle, best, best+1)
		arenas.mu.Unlock()
		return a, false
	}
	arenas.mu.Unlock()
	if mem := mapArena(n); mem != nil {
		return &arena{mem: mem}, true
	}
	return nil, false
}

// dropArena keeps a idle, unmapping the shortest idle arena if there are
// too many, and starts the timer that unmaps those idle for arenaTTL if
// it is not running (K6, K7).
func dropArena(a *arena) {
	a.idle = time.Now()
	arenas.mu.Lock()
	arenas.idle = append(arenas.idle, a)
	var drop *arena
	if len(arenas.idle) > arenaKeep {
		short := shortest(arenas.idle, func(a *arena) int { return len(a.mem) })
		drop = arenas.idle[short]
		arenas.idle = slices.Delete(arenas.idle, short, short+1)
	}
	if arenas.timer == nil {
		arenas.timer = time.AfterFunc(arenaTTL, arenaTimer)
	}
	arenas.mu.Unlock()
	if drop != nil {
		unmapArena(drop.mem)
	}
}

// arenaTimer unmaps the arenas idle for arenaTTL, and runs again when the
// next one will have been, if any is left (K7).
func arenaTimer() {
	now := time.Now()
	if next, ok := sweepArenas(now); ok {
		arenas.mu.Lock()
		arenas.timer = time.AfterFunc(next.Sub(now), arenaTimer)
		arenas.mu.Unlock()
	}
}

// sweepArenas unmaps the arenas idle for arenaTTL at now, and returns
// when the next of those left will have been, or false if none is left;
// then the timer is cleared (K7).
func sweepArenas(now time.Time) (next time.Time, left bool) {
	arenas.mu.Lock()
	var drop []*arena
	kept := arenas.idle[:0]
	for _, a := range arenas.idle {
		if end := a.idle.Add(arenaTTL); !now.Before(end) {
			drop = append(drop, a)
		} else {
			kept = append(kept, a)
			if !left || end.Before(next) {
				next, left = end, true
			}
		}
	}
	clear(arenas.idle[len(kept):])
	arenas.idle = kept
	if !left {
		arenas.timer = nil
	}
	arenas.mu.Unlock()
	for _, a := range drop {
		unmapArena(a.mem)
	}
	return next, left
}

// shortest returns the index of the smallest of idle by size: what a
// cache holding more than it keeps drops (the arenas, K7; the scratch
// caches, K1), since a large one serves more calls.
func shortest[T any](idle []T, size func(T) int) int {
	short := 0
	for i, x := range idle {
		if size(x) < size(idle[short]) {
			short = i
		}
	}
	return short
}

// giveBack is deferred by the call that took sc: it gives sc back to
// its cache (release) if the call returned, and also if it panicked when
// E holds no pointers, so that an arena is never left behind (K1, K6).
// With pointers, a panic may have left copies of elements in buf (K4):
// such a scratch is left to the garbage collector.
func (sc *keyScratch[E]) giveBack(returned *bool) {
	if *returned || !sc.cache.pointers {
		sc.release()
	}
}

// release gives sc back to its cache, for a later call (K1), then, if
// sc is an arena, checks the arenas against the memory limit (K9). With
// elements that hold pointers, sc.buf must be all zero (K4).
func (sc *keyScratch[E]) release() {
	c := sc.cache
	sc.fresh, sc.idleGCs = false, 0
	c.mu.Lock()
	c.idle = append(c.idle, sc)
	if limit := runtime.GOMAXPROCS(0); len(c.idle) > limit {
		short := shortest(c.idle, func(x *keyScratch[E]) int { return len(x.buf) })
		c.idle[short].drop()
		c.idle[short] = c.idle[len(c.idle)-1]
		c.idle[len(c.idle)-1] = nil
		c.idle = c.idle[:len(c.idle)-1]
	}
	c.mu.Unlock()
	gcClock.arm()
	if sc.arena != nil {
		trimToLimit() // as the call returns
	}
}

// drop is called on a scratch the cache lets go (K1, K2, K9), under the
// cache's lock: an arena goes idle (K6), and the scratch is left without
// memory.
func (sc *keyScratch[E]) drop() {
	if sc.arena != nil {
		a := sc.arena
		sc.buf, sc.keys, sc.arena = nil, nil, nil
		dropArena(a)
	}
}

// sweep implements scratchSweeper (K2).
func (c *scratchCache[E]) sweep() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.idle[:0]
	for _, sc := range c.idle {
		if sc.idleGCs++; sc.idleGCs < 2 {
			kept = append(kept, sc)
		} else {
			sc.drop()
		}
	}
	clear(c.idle[len(kept):])
	c.idle = kept
	return len(kept) > 0
}

// gcClock sweeps the scratch caches once per garbage collection while
// some cache holds a scratch, or some arena is idle and a memory limit
// is set (K2, K9). armed is set while a gcTick with a finalizer exists:
// one at a time. mu is held by arm, and by the finalizer for the whole
// sweep, so that a release racing with a sweep that finds every cache
// empty either is seen by the sweep or arms the clock again once the
// sweep has disarmed it; never neither.
var gcClock clock

type clock struct {
	mu    sched.Lock // fj's own: a holder waiting in it is no stall
	armed bool
}

// gcTick is the object whose finalizer runs once per collection. It
// holds a pointer so that the tiny allocator, which may put small objects
// without pointers together in one block (where one finalizer could wait
// on its neighbours), does not take it.
type gcTick struct{ _ *byte }

// arm starts the clock if it is not running.
func (c *clock) arm() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.armed {
		c.armed = true
		runtime.SetFinalizer(&gcTick{}, gcTicked)
	}
}

// gcTicked runs on the finalizer goroutine after each collection that
// found t unreachable: it sweeps every cache (K2), checks the arenas
// against the memory limit (K9), and sets t's finalizer again (t is then
// reachable from nothing, and the next collection finds it so again)
// unless every cache is empty and, with a limit set, no arena is idle.
func gcTicked(t *gcTick) {
	gcClock.mu.Lock()
	defer gcClock.mu.Unlock()
	left := false
	scratchCaches.Range(func(_, c any) bool {
		if c.(scratchSweeper).sweep() {
			left = true
		}
		return true
	})
	trimToLimit()
	if !left && limitSet() {
		arenas.mu.Lock()
		left = len(arenas.idle) > 0
		arenas.mu.Unlock()
	}
	if left {
		runtime.SetFinalizer(t, gcTicked)
	} else {
		gcClock.armed = false
	}
}

// dropArenas implements scratchSweeper (K9).
func (c *scratchCache[E]) dropArenas() {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.idle[:0]
	for _, sc := range c.idle {
		if sc.arena != nil {
			sc.drop()
		} else {
			kept = append(kept, sc)
		}
	}
	clear(c.idle[len(kept):])
	c.idle = kept
}

// trimToLimit unmaps every arena that no call holds if overLimit (K9).
func trimToLimit() {
	if overLimit() {
		freeArenas()
	}
}

// freeArenas drops every cached scratch that lies in an arena, one cache
// at a time, then unmaps every idle arena (K9). Arenas held by running
// calls are left to them.
func freeArenas() {
	scratchCaches.Range(func(_, c any) bool {
		c.(scratchSweeper).dropArenas()
		return true
	})
	arenas.mu.Lock()
	idle := arenas.idle
	arenas.idle = nil
	arenas.mu.Unlock()
	for _, a := range idle {
		unmapArena(a.mem)
	}
}

// limitSet reports whether a memory limit is set (debug.SetMemoryLimit,
// or GOMEMLIMIT).
func limitSet() bool { return debug.SetMemoryLimit(-1) != math.MaxInt64 }

// overLimit reports whether a memory limit is set and the runtime's
// memory with the heap at its goal, plus the scratch mapped outside the
// heap (K8), passes it (K9).
func overLimit() bool {
	outside := sched.ScratchBytes.Load()
	if outside <= 0 {
		return false
	}
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return false
	}
	return readRuntimeMem().atGoal()+uint64(outside) > uint64(limit)
}

// runtimeMem is what runtime/metrics says of the memory the Go runtime
// holds, in the terms of its memory limit (K9).
type runtimeMem struct {
	// total is what the runtime has mapped; released, the part of the
	// heap given back to the system. The limit counts total-released.
	total, released uint64
	// heap is the heap the limit counts: spans in use (objects and the
	// space between them) and free spans not given back.
	heap uint64
	// goal is the heap's goal for the end of the current cycle.
	goal uint64
}

// memMetrics are the metrics readRuntimeMem reads, in the order it
// reads them.
var memMetrics = [...]string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/gc/heap/goal:bytes",
}

// readRuntimeMem reads runtimeMem's figures (a metric this Go does not
// have reads as 0).
func readRuntimeMem() runtimeMem {
	var s [len(memMetrics)]metrics.Sample
	for i, name := range memMetrics {
		s[i].Name = name
	}
	metrics.Read(s[:])
	var v [len(memMetrics)]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return runtimeMem{total: v[0], released: v[1], heap: v[2] + v[3] + v[4], goal: v[5]}
}

// atGoal returns the memory the limit counts once the heap has grown to
// its goal, the rest as it is now: what the runtime may hold before its
// next collection without counting any arena.
func (m runtimeMem) atGoal() uint64 {
	used := m.total - min(m.released, m.total)
	return used - min(m.heap, used) + max(m.heap, m.goal)
}

// pageBytes is the smallest page size of the systems Go runs on: a write
// every pageBytes touches every page.
const pageBytes = 4096

// touchPages faults in the pages that s spans (K3). s must hold zero
// values only, as fresh memory does: it is left as it was.
func touchPages[E any](s []E) {
	size := uintptr(unsafe.Sizeof(*new(E)))
	if size == 0 || len(s) == 0 {
		return
	}
	// The whole pages inside s in one call, if the system has one; the
	// two pages s may share with its neighbours, by the writes to its
	// first and last elements.
	var zero E
	s[0], s[len(s)-1] = zero, zero
	p := unsafe.Pointer(unsafe.SliceData(s))
	first := (uintptr(p) + pageBytes - 1) &^ (pageBytes - 1)
	end := (uintptr(p) + uintptr(len(s))*size) &^ (pageBytes - 1)
	if first < end && prefault(unsafe.Add(p, first-uintptr(p)), end-first) {
		return
	}
	step := max(1, pageBytes/int(size))
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
}

// hasPointers reports whether a value of type t holds pointers that the
// garbage collector follows.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	default: // pointers, unsafe.Pointer, strings, slices, maps, channels, functions, interfaces
		return true
	}
}
