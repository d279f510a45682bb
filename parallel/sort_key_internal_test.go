package parallel

import (
	"cmp"
	"math/rand"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

func TestHasPointers(t *testing.T) {
	type flat struct {
		_ int64
		_ [3]float32
		_ struct{ _ uint8 }
		_ [0]*int
	}
	type deep struct {
		_ int
		_ [2]struct{ _ []byte }
	}
	for _, c := range []struct {
		v    any
		want bool
	}{
		{int8(0), false}, {uintptr(0), false}, {complex128(0), false}, {flat{}, false},
		{[4]int{}, false}, {struct{}{}, false},
		{"", true}, {[]int(nil), true}, {(*int)(nil), true}, {unsafe.Pointer(nil), true},
		{map[int]int(nil), true}, {(chan int)(nil), true}, {(func())(nil), true},
		{[1]any{}, true}, {deep{}, true}, {struct {
			_ int
			s string
		}{}, true},
	} {
		if got := hasPointers(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("hasPointers(%T) = %v, want %v", c.v, got, c.want)
		}
	}
}

// named is a record with a pointer, sorted by key.
type named struct {
	key  int64
	name *string
	_    [2]int64
}

func namedKey(r named) int64 { return r.key }

// cachedScratch runs sort, a SortByKey of E's on n elements, and takes
// from the cache the scratch it gave back, failing the test if there is
// none. Two collections between the sort and the take would drop it: a
// miss is retried a few times.
func cachedScratch[E any](t *testing.T, n int, sort func()) *keyScratch[E] {
	t.Helper()
	for try := 0; try < 5; try++ {
		sort()
		if sc := takeScratch[E](n); !sc.fresh {
			return sc
		}
	}
	t.Fatalf("5 calls of SortByKey on %d elements left no scratch in the cache", n)
	return nil
}

// SortByKey gives its scratch back for the next call, and with elements
// that hold pointers the scratch comes back cleared, whichever way the
// ranges ended: sorted by LSD passes, by the last MSD pass of a long
// range (keys of one or two digits), or by a stop.
func TestSortByKeyScratchIsKeptCleared(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	rng := rand.New(rand.NewSource(23))
	names := []string{"a", "b", "c"}
	for _, c := range []struct {
		what  string
		n     int
		bound int64 // keys in [0, bound)
	}{
		{"short, sequential", 3000, 1 << 40},
		{"long, random 63-bit keys", 300_000, 1 << 62},
		{"long, one-digit keys", 300_000, 200},
		{"long, two-digit keys", 300_000, 60_000},
	} {
		s := make([]named, c.n)
		for i := range s {
			s[i] = named{key: rng.Int63n(c.bound), name: &names[i%3]}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b named) int { return cmp.Compare(a.key, b.key) })
		sc := cachedScratch[named](t, c.n, func() {
			got := slices.Clone(s)
			SortByKey(p, got, namedKey)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: SortByKey differs from slices.SortStableFunc", c.what)
			}
		})
		if i := slices.IndexFunc(sc.buf, func(r named) bool { return r != named{} }); i >= 0 {
			t.Errorf("%s: the kept scratch holds an element at %d of %d", c.what, i, len(sc.buf))
		}
		sc.release()
	}

	// A stop with the elements in buf: they go back to s, in the order
	// they had, and buf is cleared.
	var flag StopFlag
	flag.Stop()
	n := 200_000
	s := make([]named, n)
	for i := range s {
		s[i] = named{key: rng.Int63(), name: &names[i%3]}
	}
	orig := slices.Clone(s)
	sc := takeScratch[named](n)
	rs := &radixSorter[named]{s: s, ctl: sortControl("SortByKey", []Option{Stop(&flag)})}
	rs.use(sc)
	copy(rs.buf, s)
	clear(s)
	encodeKeys(rs.buf, namedKey, rs.k)
	rs.plan(^uint64(0), 0)
	p.Run(func(w *pool.Worker) { rs.sort(w, 0, n, 0, false) })
	if !slices.Equal(s, orig) {
		t.Error("a stop with the elements in buf did not copy them back to s")
	}
	if i := slices.IndexFunc(rs.buf, func(r named) bool { return r != named{} }); i >= 0 {
		t.Errorf("a stop with the elements in buf left an element in buf at %d", i)
	}
}

// A program that sorts again and again allocates SortByKey's scratch
// once, not on every call (issue 23: allocating it, and touching it
// first, cost more than the sort).
func TestSortByKeyAllocatesItsScratchOnce(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	n := 200_000
	rng := rand.New(rand.NewSource(24))
	orig := make([]named, n)
	for i := range orig {
		orig[i] = named{key: rng.Int63()}
	}
	s := slices.Clone(orig)
	SortByKey(p, s, namedKey) // the cache now holds a scratch
	const calls = 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		copy(s, orig)
		SortByKey(p, s, namedKey)
	}
	runtime.ReadMemStats(&after)
	scratch := uint64(n) * uint64(unsafe.Sizeof(named{})+16)
	// Two collections between two calls would drop the scratch (the
	// test allocates little: a collection is rare); otherwise the calls
	// allocate no scratch at all.
	limit := 2 * scratch
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Errorf("%d calls of SortByKey on %d records allocated %d bytes, want at most %d (a scratch is %d bytes)",
			calls, n, got, limit, scratch)
	}
}

// The cache keeps a scratch through one collection and drops it at the
// second (K2 of sort_key_scratch.md), keeps at most GOMAXPROCS scratches,
// dropping the shortest (K1), and a call takes the one released last among those long enough.
func TestScratchCachePolicy(t *testing.T) {
	type elem struct{ _, _ int32 }
	c := takeScratch[elem](1).cache
	drain := func() {
		for len(c.idle) > 0 {
			c.sweep()
		}
	}
	drain()
	sizes := func() []int {
		c.mu.Lock()
		defer c.mu.Unlock()
		var ns []int
		for _, sc := range c.idle {
			ns = append(ns, len(sc.buf))
		}
		return ns
	}

	a := takeScratch[elem](100)
	if !a.fresh || len(a.buf) != 100 || len(a.keys) != 200 {
		t.Fatalf("from an empty cache: fresh %v, %d elements, %d keys; want a fresh scratch of 100 and 200", a.fresh, len(a.buf), len(a.keys))
	}
	a.release()
	if !c.sweep() || !slices.Equal(sizes(), []int{100}) {
		t.Fatalf("after one collection the cache holds %v, want [100]", sizes())
	}
	if c.sweep() || len(sizes()) != 0 {
		t.Fatalf("after two collections the cache holds %v, want nothing", sizes())
	}

	procs := runtime.GOMAXPROCS(0)
	for i := range procs + 1 {
		sc := &keyScratch[elem]{buf: make([]elem, 10+i), keys: make([]uint64, 2*(10+i)), cache: c}
		if i == procs {
			sc.buf, sc.keys = sc.buf[:5], sc.keys[:10]
		}
		sc.release()
	}
	if got := sizes(); len(got) != procs || slices.Contains(got, 5) {
		t.Fatalf("%d scratches released: the cache holds %v, want %d of them without the shortest (5)", procs+1, got, procs)
	}
	if sc := takeScratch[elem](10); sc.fresh || len(sc.buf) != 10+procs-1 {
		t.Errorf("took a scratch of %d elements (fresh %v), want the one released last, %d", len(sc.buf), sc.fresh, 10+procs-1)
	}
	if sc := takeScratch[elem](1000); !sc.fresh {
		t.Errorf("took a cached scratch of %d elements for 1000", len(sc.buf))
	}
	drain()
}

// Left alone, a cached scratch is dropped by the garbage collector's own
// runs: the clock's finalizer sweeps the caches at each collection
// (K2), and disarms once they are empty.
func TestScratchCacheIsDroppedByCollections(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	type elem struct{ _, _ int64 }
	sc := takeScratch[elem](1000)
	c := sc.cache
	sc.release()
	held := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.idle)
	}
	if held() != 1 {
		t.Fatalf("the cache holds %d scratches, want 1", held())
	}
	// The finalizer runs on its own goroutine, after the collection:
	// collect until it has run twice (Gosched lets it run).
	for i := 0; held() > 0; i++ {
		if i == 10_000 {
			t.Fatal("10,000 collections left the scratch in the cache")
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// Calls running at once on one element type each get their own scratch,
// and sort correctly (run with -race).
func TestSortByKeyConcurrentCalls(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	type elem struct {
		key int32
		idx int32
	}
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	n := fjtest.Small(100_000, 20_000)
	const calls = 8
	rng := rand.New(rand.NewSource(25))
	inputs := make([][]elem, calls)
	for c := range inputs {
		s := make([]elem, n>>(c%3))
		for i := range s {
			s[i] = elem{int32(rng.Intn(1 << 20)), int32(i)}
		}
		inputs[c] = s
	}
	done := make(chan []elem)
	for _, s := range inputs {
		go func() {
			got := slices.Clone(s)
			SortByKey(p, got, func(e elem) int32 { return e.key })
			done <- got
		}()
	}
	for range calls {
		got := <-done
		if !slices.IsSortedFunc(got, func(a, b elem) int {
			return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.idx, b.idx))
		}) {
			t.Errorf("a SortByKey of %d elements, run beside %d others, is not sorted stably", len(got), calls-1)
		}
	}
}
