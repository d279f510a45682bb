package parallel

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"runtime"
	"runtime/debug"
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
// scratch (what K9 does under a limit without room), so that until the
// test maps one, nothing unmaps an arena behind its back (no timer or
// collection finds one to unmap), and sched.ScratchBytes moves only by
// what the test does.
func quietArenas(t *testing.T) {
	t.Helper()
	freeArenas()
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

// K9: the memory the limit counts once the heap reaches its goal is the
// runtime's memory now, less the heap, plus the larger of the heap and
// its goal.
func TestRuntimeMemAtGoal(t *testing.T) {
	for _, c := range []struct {
		m    runtimeMem
		want uint64
	}{
		// 100 mapped, 20 of it released: 80 counted, 50 of it heap.
		{runtimeMem{total: 100, released: 20, heap: 50, goal: 70}, 100}, // the heap grows by 20
		{runtimeMem{total: 100, released: 20, heap: 50, goal: 40}, 80},  // past its goal already
		{runtimeMem{total: 100, released: 0, heap: 0, goal: 0}, 100},
		{runtimeMem{}, 0},
	} {
		if got := c.m.atGoal(); got != c.want {
			t.Errorf("%+v.atGoal() = %d, want %d", c.m, got, c.want)
		}
	}
	if m := readRuntimeMem(); m.total == 0 || m.heap == 0 || m.goal == 0 || m.heap > m.total {
		t.Errorf("readRuntimeMem() = %+v: a metric is missing", m)
	}
}

// K9: with a memory limit set, a sort whose heap at its goal plus its
// arena would pass the limit leaves no scratch outside the heap when it
// returns: 1M 32-byte records (32 MiB, and the 32 MiB of the expected
// result beside them) under 128 MiB, where the heap may grow to the
// limit before its next collection (GOGC=100: twice the 64 MiB live) and
// the scratch is 48 MiB more. (With the records alone live, the heap's
// goal is about 68 MiB, and 68 + 48 MiB is within 128: such a sort keeps
// its scratch, which TestScratchKeptWhileTheLimitHasRoom checks on a
// smaller one.)
func TestSortByKeyUnderMemoryLimitLeavesNoScratch(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	type rec struct{ Key, I, _, _ int64 }
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(3, 4))
	s := make([]rec, n)
	for i := range s {
		s[i] = rec{Key: rng.Int64(), I: int64(i)}
	}
	want := slices.Clone(s)
	slices.SortStableFunc(want, func(a, b rec) int { return cmp.Compare(a.Key, b.Key) })
	runtime.GC() // the heap's goal for the 64 MiB live: 128 MiB
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(128 << 20))
	SortByKey(p, s, func(r rec) int64 { return r.Key })
	if got := p.Stats().ScratchBytes; got != 0 {
		t.Errorf("after a sort of %d records under a 128 MiB limit, ScratchBytes = %d, want 0", n, got)
	}
	if !slices.Equal(s, want) {
		t.Error("SortByKey under a memory limit differs from slices.SortStableFunc")
	}
}

// K9: under a limit with room for the heap at its goal and the scratch,
// the scratch is kept for the next call, as without a limit; once the
// limit has no room for it, the next collection unmaps it (K2's clock).
func TestScratchKeptWhileTheLimitHasRoom(t *testing.T) {
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
	room := readRuntimeMem().atGoal() + 1<<30
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(room)))
	SortByKey(p, s, func(r rec) int64 { return r.Key })
	kept := p.Stats().ScratchBytes
	if kept < uint64(len(s))*48 {
		t.Fatalf("under a limit with 1 GiB of room, ScratchBytes = %d after the sort, want its scratch (%d bytes) kept", kept, len(s)*48)
	}
	// A limit above what the runtime holds now, so that the collector
	// is not pressed, but without room for the scratch.
	m := readRuntimeMem()
	debug.SetMemoryLimit(int64(m.total - m.released + kept/2))
	for i := 0; p.Stats().ScratchBytes != 0; i++ {
		if i == 10_000 {
			t.Fatalf("10,000 collections under a limit without room left ScratchBytes = %d", p.Stats().ScratchBytes)
		}
		runtime.GC()
		runtime.Gosched()
	}
}
