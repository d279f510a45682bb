package parallel

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// takeIdleArena removes a from the idle arenas and reports whether it
// was there.
func takeIdleArena(a *arena) bool {
	arenas.mu.Lock()
	defer arenas.mu.Unlock()
	i := slices.Index(arenas.idle, a)
	if i >= 0 {
		arenas.idle = slices.Delete(arenas.idle, i, i+1)
	}
	return i >= 0
}

// A scratch of elements without pointers, 1 MiB or more, lies in an
// arena (sort_key_scratch.md, K5); dropped, the arena goes idle (K6) and
// the next scratch that finds no cached one takes it (K5); idle too long,
// it is unmapped (K7).
func TestScratchArena(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arenas are mapped on Linux only")
	}
	type rec struct{ _, _, _, _ int64 }
	n := arenaMin / 16 // 48 bytes an element with its keys: 3 MiB
	sc := takeScratch[rec](n)
	if sc.arena == nil {
		t.Fatalf("a scratch of %d 32-byte elements is on the heap, want an arena", n)
	}
	if !sc.fresh || len(sc.buf) != n || len(sc.keys) != 2*n {
		t.Fatalf("fresh %v, %d elements, %d keys; want a fresh scratch of %d and %d", sc.fresh, len(sc.buf), len(sc.keys), n, 2*n)
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(sc.arena.mem)))
	end := start + uintptr(len(sc.arena.mem))
	for _, p := range []uintptr{
		uintptr(unsafe.Pointer(&sc.keys[0])), uintptr(unsafe.Pointer(&sc.keys[2*n-1])) + 8,
		uintptr(unsafe.Pointer(&sc.buf[0])), uintptr(unsafe.Pointer(&sc.buf[n-1])) + unsafe.Sizeof(rec{}),
	} {
		if p < start || p > end {
			t.Fatalf("the scratch reaches %#x, outside its arena [%#x, %#x)", p, start, end)
		}
	}
	if uintptr(unsafe.Pointer(&sc.keys[2*n-1]))+8 > uintptr(unsafe.Pointer(&sc.buf[0])) {
		t.Fatal("the keys and buf overlap")
	}
	a := sc.arena
	sc.keys[0], sc.buf[n-1] = 1, rec{}

	// What the drop does once the cache lets sc go (K6).
	dropArena(a)
	if !takeIdleArena(a) {
		t.Fatal("a dropped arena is not idle")
	}
	dropArena(a)
	got, fresh := takeArena(len(a.mem) / 2)
	if got != a || fresh {
		t.Fatalf("took arena %p (fresh %v), want the idle one %p, not fresh", got, fresh, a)
	}
	dropArena(a)

	// K7: unmapped once idle for arenaTTL.
	if _, left := sweepArenas(time.Now().Add(arenaTTL / 2)); !left || !takeIdleArena(a) {
		t.Fatal("an arena idle for half of arenaTTL is gone")
	}
	dropArena(a)
	sweepArenas(time.Now().Add(2 * arenaTTL))
	if takeIdleArena(a) {
		t.Fatal("an arena idle for longer than arenaTTL is still kept")
	}
}

// K7: at most arenaKeep arenas stay idle, the shortest is unmapped.
func TestScratchArenaKeepsFew(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arenas are mapped on Linux only")
	}
	// Start from no idle arena, so that the shortest is one of ours.
	arenas.mu.Lock()
	others := arenas.idle
	arenas.idle = nil
	arenas.mu.Unlock()
	for _, a := range others {
		unmapArena(a.mem)
	}
	var mine []*arena
	for i := range arenaKeep + 1 {
		// Shorter than any scratch's arena (arenaMin or more): the
		// shortest idle one is ours even if a finalizer adds another.
		a := &arena{mem: mapArena(arenaMin - 4096 + i*4096)}
		if a.mem == nil {
			t.Fatal("no arena mapped")
		}
		mine = append(mine, a)
	}
	for _, a := range mine {
		dropArena(a)
	}
	defer func() {
		for _, a := range mine {
			if takeIdleArena(a) {
				unmapArena(a.mem)
			}
		}
	}()
	arenas.mu.Lock()
	idle := len(arenas.idle)
	shortest := slices.Contains(arenas.idle, mine[0])
	arenas.mu.Unlock()
	if idle > arenaKeep || shortest {
		t.Fatalf("%d arenas idle (the shortest among them: %v), want at most %d without the shortest", idle, shortest, arenaKeep)
	}
}

// A sort whose scratch lies in an arena sorts, stably, also when the
// arena comes back idle from an earlier call whose scratch the
// collections dropped.
func TestSortByKeyInArena(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	type rec struct {
		Key  int64
		I    int64
		_, _ int64
	}
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1 << 17
	for round := range 3 {
		s := make([]rec, n)
		for i := range s {
			s[i] = rec{Key: rng.Int64N(1 << 20), I: int64(i)}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b rec) int { return cmp.Compare(a.Key, b.Key) })
		SortByKey(p, s, func(r rec) int64 { return r.Key })
		if !slices.Equal(s, want) {
			t.Fatalf("round %d: SortByKey differs from slices.SortStableFunc", round)
		}
		for range 3 {
			runtime.GC() // drops the cached scratch: the next round may take its arena
		}
	}
}

// K6: the cache's second collection hands an arena scratch's arena to
// the idle list.
func TestScratchArenaIdleAtDrop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arenas are mapped on Linux only")
	}
	type rec struct{ _, _, _, _ int64 }
	c := &scratchCache[rec]{}
	sc := &keyScratch[rec]{cache: c}
	a := &arena{mem: mapArena(arenaMin)}
	if a.mem == nil {
		t.Fatal("no arena mapped")
	}
	sc.arena = a
	sc.release()
	c.sweep()
	if takeIdleArena(a) {
		t.Fatal("an arena went idle after one collection, while its scratch was cached")
	}
	c.sweep()
	if !takeIdleArena(a) {
		t.Fatal("after two collections the arena of the scratch the cache dropped is not idle")
	}
	unmapArena(a.mem)
}

// quietArenas unmaps every idle arena and every arena of a cached
// scratch, so that until the test maps one, nothing unmaps an arena
// behind its back (no timer, collection or finalizer finds one to
// unmap), and sched.ScratchBytes moves only by what the test does.
func quietArenas(t *testing.T) {
	t.Helper()
	scratchCaches.Range(func(_, c any) bool {
		for c.(scratchSweeper).sweep() {
		}
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

// K8: an arena counts in Stats.ScratchBytes from its mapping to its
// unmapping, cached, idle or in use alike.
func TestScratchBytesCounted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arenas are mapped on Linux only")
	}
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	quietArenas(t)
	before := p.Stats().ScratchBytes
	type rec struct{ _, _, _, _ int64 }
	sc := takeScratch[rec](arenaMin / 16)
	if sc.arena == nil || !sc.fresh {
		t.Fatal("a fresh scratch of 3 MiB is not in a fresh arena")
	}
	size := uint64(len(sc.arena.mem))
	if got := p.Stats().ScratchBytes; got != before+size {
		t.Fatalf("with a %d-byte arena mapped, ScratchBytes = %d, want %d", size, got, before+size)
	}
	sc.release()
	if got := p.Stats().ScratchBytes; got != before+size {
		t.Fatalf("with the scratch cached, ScratchBytes = %d, want %d", got, before+size)
	}
	quietArenas(t) // dropped (idle), then unmapped
	if got := p.Stats().ScratchBytes; got != before {
		t.Fatalf("with the arena unmapped, ScratchBytes = %d, want %d", got, before)
	}
	if s := p.Stats().String(); !strings.Contains(s, "SortByKey scratch outside the Go heap") {
		t.Errorf("Stats.String() does not show the scratch:\n%s", s)
	}
}

// K1, K6: a call whose key panics gives its arena back to the cache as a
// call that returns does, so that repeated panics map no arena after the
// first and leave none to the collector.
func TestSortByKeyPanicGivesArenaBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arenas are mapped on Linux only")
	}
	fjtest.Deadline(t, time.Minute)
	type rec struct{ Key, _, _, _ int64 }
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	quietArenas(t)
	s := make([]rec, 1<<16) // 3 MiB of scratch: an arena
	for i := range s {
		s[i].Key = int64(len(s) - i)
	}
	var held uint64
	for round := range 3 {
		r := fjtest.Catch(func() {
			SortByKey(p, s, func(r rec) int64 {
				if r.Key == 1000 {
					panic("boom")
				}
				return r.Key
			})
		})
		if _, ok := r.(*pool.PanicError); !ok {
			t.Fatalf("round %d: SortByKey whose key panics: %v, want a *pool.PanicError", round, r)
		}
		got := p.Stats().ScratchBytes
		if round == 0 {
			held = got
		}
		if got == 0 || got != held {
			t.Fatalf("round %d: ScratchBytes = %d after a panic, want the first round's %d, not 0", round, got, held)
		}
		v, _ := scratchCaches.Load(reflect.TypeFor[rec]())
		c := v.(*scratchCache[rec])
		c.mu.Lock()
		cached := len(c.idle) == 1 && c.idle[0].arena != nil
		c.mu.Unlock()
		if !cached {
			t.Fatalf("round %d: after a panic the cache does not hold the call's arena scratch", round)
		}
	}
	quietArenas(t)
}
