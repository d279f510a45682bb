package parallel

import (
	"reflect"
	"runtime"
	"sync"
	"unsafe"
)

// SortByKey's scratch memory, and the cache that keeps it between calls.
//
// A call on n elements needs a buffer of n elements and 2n uint64 (the
// keys and their buffer): 192 MB for 4M 32-byte records. Allocating it
// afresh on every call cost more than the sort itself (issue 23), in one
// of two ways. Memory the process has not touched yet, or has given back
// to the system (the runtime's scavenger does so with free memory), costs
// a page fault, and the kernel's zeroing of the page, the first time each
// page is touched: 49,152 faults for 192 MB of 4 KiB pages, at 3.6 to 12
// µs each on the two-core virtual machine fj is developed on (120 to 410
// ms per 128 MB touched by one thread, by the load). Memory the garbage
// collector freed and the runtime hands out again is zeroed by the
// runtime (unless all of it had gone back to the system), on the
// allocating goroutine, before make returns: 192 MB cleared by one core,
// with a fault per page that had gone back, while the other workers wait.
//
// So a call gives its scratch back to its element type's cache when it
// returns, and the next call takes it from there: a program that sorts
// again and again touches the same memory and allocates nothing (C1).
// The cache is dropped the way a sync.Pool is (C2), so the memory is kept
// while a program keeps sorting, not pinned for ever. A call that finds
// no scratch long enough allocates one, and has its pages faulted in by
// the workers, each its own part, while they compute the keys (C3).
//
// C1. A cache keeps, per element type, the scratches of calls that have
//     returned, at most GOMAXPROCS of them (when there are more, the
//     shortest goes), each as long as the call that allocated it. A call
//     takes the one released last among those long enough for it; calls
//     running at once take different ones. sync.Pool is not used: its
//     per-P slots give a scratch released on one P only to a call on
//     that P, and a call on another P would allocate a second one.
// C2. A scratch left in the cache through two garbage collections is
//     dropped, and freed by the next one. The collections are counted by
//     the finalizer of an object that is made unreachable again at each
//     run (gcClock): it sweeps every cache once per collection while
//     some cache holds a scratch, and is not armed otherwise.
// C3. A fresh scratch holds zeros only. Its pages are faulted in by the
//     key pass, which runs on every worker: each piece of the slice maps
//     its part of buf, of the keys and of their buffer (prefault: one
//     system call on Linux, MADV_POPULATE_WRITE; a write of a zero per
//     page elsewhere, or where the kernel has no such call). The
//     runtime's own zeroing of reused memory, when make does it, cannot
//     be spread so: a call that allocates then pays it (C1 makes such
//     calls rare).
//
//     A call that allocates still pays for its fresh pages, and by their
//     number (issue 32, measured on the development VM, 4M 32-byte
//     records after three collections and debug.FreeOSMemory): the
//     cost is mostly the host's, not the guest kernel's. The guest
//     reports memory it frees to the host in 2 MiB blocks (virtio-balloon
//     free page reporting), the host discards it, and the next touch
//     faults there too: 5 to 27 µs per 4 KiB page, with the time in the
//     guest's clear_page. Asking for transparent huge pages
//     (MADV_HUGEPAGE on the scratch) cut the faults from 49,000 to 1,200
//     a call but not the time, so it is not done; only a smaller scratch
//     makes such a call cheaper.
// C4. With elements that hold pointers, buf is all zero whenever the
//     scratch is in the cache, so that it keeps no stale copy of an
//     element, and what the element points to, alive: every range of buf
//     is cleared once its elements are final in s (radixSorter.done).
//     The keys hold no pointers and are left as they are.

// keyScratch is the scratch memory of a SortByKey call: buf, a buffer at
// least as long as the slice, and keys, the keys and their buffer (twice
// len(buf) uint64).
type keyScratch[E any] struct {
	buf   []E
	keys  []uint64
	cache *scratchCache[E]
	// fresh is set on a scratch that its call allocated: its pages have
	// not been touched yet (C3).
	fresh bool
	// idleGCs counts the collections the scratch has spent in the cache
	// (C2).
	idleGCs int
}

// scratchCache holds the scratches that calls on elements of type E have
// given back (C1).
type scratchCache[E any] struct {
	mu   sync.Mutex
	idle []*keyScratch[E]
	// pointers is set if E holds pointers (C4).
	pointers bool
}

// scratchSweeper is what gcClock sees of a scratchCache of any type.
type scratchSweeper interface {
	// sweep ages the idle scratches by one collection, drops those that
	// have been idle for two, and reports whether any are left.
	sweep() bool
}

// scratchCaches maps an element type (a reflect.Type) to its
// *scratchCache.
var scratchCaches sync.Map

// takeScratch returns a scratch for a slice of n elements: from E's
// cache if it holds one long enough, else a fresh one.
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
	return &keyScratch[E]{buf: make([]E, n), keys: make([]uint64, 2*n), cache: c, fresh: true}
}

// release gives sc back to its cache, for a later call. With elements
// that hold pointers, sc.buf must be all zero (C4).
func (sc *keyScratch[E]) release() {
	c := sc.cache
	sc.fresh, sc.idleGCs = false, 0
	c.mu.Lock()
	c.idle = append(c.idle, sc)
	if limit := runtime.GOMAXPROCS(0); len(c.idle) > limit {
		// Drop the shortest.
		short := 0
		for i, x := range c.idle {
			if len(x.buf) < len(c.idle[short].buf) {
				short = i
			}
		}
		c.idle[short] = c.idle[len(c.idle)-1]
		c.idle[len(c.idle)-1] = nil
		c.idle = c.idle[:len(c.idle)-1]
	}
	c.mu.Unlock()
	gcClock.arm()
}

// sweep implements scratchSweeper (C2).
func (c *scratchCache[E]) sweep() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.idle[:0]
	for _, sc := range c.idle {
		if sc.idleGCs++; sc.idleGCs < 2 {
			kept = append(kept, sc)
		}
	}
	clear(c.idle[len(kept):])
	c.idle = kept
	return len(kept) > 0
}

// gcClock sweeps the scratch caches once per garbage collection while
// some cache holds a scratch (C2). armed is set while a gcTick with a
// finalizer exists: one at a time. mu is held by arm, and by the
// finalizer for the whole sweep, so that a release racing with a sweep
// that finds every cache empty either is seen by the sweep or arms the
// clock again once the sweep has disarmed it; never neither.
var gcClock clock

type clock struct {
	mu    sync.Mutex
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
// found t unreachable: it sweeps every cache, and sets t's finalizer
// again (t is then reachable from nothing, and the next collection finds
// it so again) unless every cache is empty.
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
	if left {
		runtime.SetFinalizer(t, gcTicked)
	} else {
		gcClock.armed = false
	}
}

// pageBytes is the smallest page size of the systems Go runs on: a write
// every pageBytes touches every page.
const pageBytes = 4096

// touchPages faults in the pages that s spans (C3). s must hold zero
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
