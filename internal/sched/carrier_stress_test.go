package sched_test

// Randomized stress tests of the carrier mechanism (carrier.md): programs
// that mix forkjoin.Join, Fork/Future (joined by the forker, by its
// children and grandchildren, by siblings, in forward and reverse order, or
// never), taskblock Define/Run/Wait (with tasks that Run more tasks), raw
// WaitFor on a Latch, Invoke on the worker and on a nested pool, panics and
// runtime.Goexit, run by several external submitters at once on pools of
// 1, 2, 3 and 8 workers with deque capacities 1, 4 and 1024.
//
// Every program is also evaluated sequentially (worker nil), which gives
// the expected result, the number of nodes and a checksum of the nodes run:
// a result delivered to the wrong join, a task lost or run twice, shows.
// Joins in the "wrong" order (a future joined while younger forks sit above
// it on the deque, a sibling waiting for a younger sibling) make tasks park
// even on one worker, so the carrier hand-off, resumption and shutdown paths
// all run. csSec checks, between the points where a node may give its
// worker up, that no other goroutine ran tasks of that worker meanwhile
// (exactly one carrier holds a worker); goleak (TestMain) checks that Close
// leaves no carrier behind, spares included.

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// csMix is splitmix64's finaliser.
func csMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// csPanic is what a node of a program panics with.
type csPanic uint64

// csProg is one randomized program. Its shape is fixed by a seed; run with
// a nil worker it is evaluated sequentially, with a worker it uses the
// construct each node names.
type csProg struct {
	nested *pool.Pool // for Invoke on a second pool; nil: not used
	nodes  atomic.Int64
	sum    atomic.Uint64 // sum of the hashes of the nodes run
	bad    atomic.Value  // string: what went wrong, if anything
	// owners has a slot per worker of the pools the program runs on; see
	// csSec. Nil: not checked.
	owners map[*pool.Pool][]atomic.Uint64
}

// csTok hands out section tokens.
var csTok atomic.Uint64

// csSec checks that exactly one goroutine runs a worker's tasks at a time
// (carrier.go: only the holder does). A section is a stretch of a node's
// code between two points where its goroutine may give the worker up (a
// join, a wait, an Invoke); it stores a fresh token in its worker's slot
// when it begins and finds it still there when it ends, unless another
// goroutine ran a section of the same worker in between, i.e. while this
// one held it.
type csSec struct {
	slot *atomic.Uint64
	tok  uint64
}

func (pr *csProg) enter(w *pool.Worker) *csSec {
	if w == nil || pr.owners == nil {
		return nil
	}
	s := &csSec{slot: &pr.owners[w.Pool()][schedtest.W(w).ID()]}
	s.begin()
	return s
}

func (s *csSec) begin() {
	if s != nil {
		s.tok = csTok.Add(1)
		s.slot.Store(s.tok)
	}
}

func (pr *csProg) end(s *csSec) {
	if s != nil && s.slot.Load() != s.tok {
		pr.bad.CompareAndSwap(nil, "two goroutines ran tasks of one worker at the same time")
	}
}

// at ends the section, calls f (which may give the worker up) and begins a
// new section.
func (pr *csProg) at(s *csSec, f func() uint64) uint64 {
	pr.end(s)
	x := f()
	s.begin()
	return x
}

// csOwners makes the slots for csSec for the given pools.
func csOwners(ps ...*pool.Pool) map[*pool.Pool][]atomic.Uint64 {
	m := make(map[*pool.Pool][]atomic.Uint64)
	for _, p := range ps {
		m[p] = make([]atomic.Uint64, p.Workers())
	}
	return m
}

// csFut is a future in either mode: a forkjoin.Future, or (sequentially)
// a memoised thunk, evaluated on its first join or at the end of the node
// that forked it if nobody joins it.
type csFut struct {
	f     *forkjoin.Future[uint64]
	thunk func() uint64
	done  bool
	val   uint64
	pan   any
}

func (pr *csProg) fork(w *pool.Worker, fn func(w *pool.Worker) uint64) *csFut {
	if w == nil {
		return &csFut{thunk: func() uint64 { return fn(nil) }}
	}
	return &csFut{f: forkjoin.Fork(w, fn)}
}

func (f *csFut) join(w *pool.Worker) uint64 {
	if f.f != nil {
		return f.f.Join(w)
	}
	if !f.done {
		f.done = true
		func() {
			defer func() { f.pan = recover() }()
			f.val = f.thunk()
		}()
	}
	if f.pan != nil {
		panic(f.pan)
	}
	return f.val
}

// root extracts the csPanic a node raised from what a join re-raised: the
// value itself (sequential), a *pool.PanicError, or taskblock.Panics with
// exactly one entry.
func (pr *csProg) root(r any) uint64 {
	switch x := r.(type) {
	case csPanic:
		return uint64(x)
	case *pool.PanicError:
		return pr.root(x.Value)
	case taskblock.Panics:
		if len(x) == 1 {
			return pr.root(x[0].PanicError)
		}
	}
	pr.bad.CompareAndSwap(nil, fmt.Sprintf("unexpected panic value %T: %v", r, r))
	return 0
}

// guard calls f and maps a panic of a node to a value, the same in both
// modes.
func (pr *csProg) guard(f func() uint64) (v uint64) {
	defer func() {
		if r := recover(); r != nil {
			v = csMix(pr.root(r) ^ 0xdead)
		}
	}()
	return f()
}

// csBlock is a taskblock.Block, or its sequential stand-in (b == nil),
// which runs each task at once.
type csBlock struct{ b *taskblock.Block }

func (b csBlock) run(f func(w *pool.Worker)) {
	if b.b == nil {
		f(nil)
		return
	}
	b.b.Run(f)
}

// runFrom is run for a task of the block that runs on w.
func (b csBlock) runFrom(w *pool.Worker, f func(w *pool.Worker)) {
	if b.b == nil {
		f(nil)
		return
	}
	b.b.RunFrom(w, f)
}

func (b csBlock) wait() {
	if b.b != nil {
		b.b.Wait()
	}
}

func csDefine(w *pool.Worker, body func(b csBlock)) {
	if w == nil {
		body(csBlock{})
		return
	}
	taskblock.Define(w, func(b *taskblock.Block) { body(csBlock{b}) })
}

// eval runs the node with the given seed. inh is a future forked by an
// ancestor before this node's subtree, which the node may join (so futures
// are joined by tasks far from their forker); mayPanic lets the node panic
// after it has computed its value (only where no sibling can be skipped
// because of it, so that the node count stays deterministic); mayExit lets
// it call runtime.Goexit instead (only for unjoined futures, which always
// run in a carrier's main loop, never inline under a joiner).
func (pr *csProg) eval(w *pool.Worker, seed uint64, depth int, inh *csFut, mayPanic, mayExit bool) uint64 {
	h := csMix(seed)
	pr.nodes.Add(1)
	pr.sum.Add(h)
	s := pr.enter(w)
	v := pr.body(w, s, seed, h, depth, inh)
	pr.end(s)
	if mayExit && (h>>40)%3 == 0 && w != nil {
		runtime.Goexit()
	}
	if mayPanic && (h>>40)%4 == 0 {
		panic(csPanic(v))
	}
	return v
}

func (pr *csProg) body(w *pool.Worker, s *csSec, seed, h uint64, depth int, inh *csFut) uint64 {
	// guard at the node's own level: a section boundary.
	guard := func(f func() uint64) uint64 { return pr.at(s, func() uint64 { return pr.guard(f) }) }
	child := func(i uint64) uint64 { return seed*37 + i + 1 }
	sub := func(i uint64, inh *csFut, mayPanic bool) func(*pool.Worker) uint64 {
		return func(w *pool.Worker) uint64 { return pr.eval(w, child(i), depth-1, inh, mayPanic, false) }
	}
	var v uint64
	if inh != nil && (h>>20)%3 == 0 {
		// Join an ancestor's future, before or after this node's own work.
		v += 17 * guard(func() uint64 { return inh.join(w) })
	}
	if depth == 0 || h%13 == 0 {
		return v + h%1000
	}
	if (h>>24)%2 == 0 {
		inh = nil // pass it on to the children only sometimes
	}
	switch (h >> 8) % 9 {
	case 0: // Join; fb may panic
		return v + guard(func() uint64 {
			if w == nil {
				a := sub(0, inh, false)(nil)
				return 3*a + sub(1, inh, true)(nil)
			}
			a, b := forkjoin.Join(w, sub(0, inh, false), sub(1, inh, true))
			return 3*a + b
		})
	case 1: // k futures, joined in forward or reverse order by the forker
		k := 1 + int((h>>16)%4)
		fs := make([]*csFut, k)
		for i := range fs {
			fs[i] = pr.fork(w, sub(uint64(i), inh, true))
		}
		for j := 0; j < k; j++ {
			i := j
			if (h>>30)%2 == 0 {
				i = k - 1 - j
			}
			v += uint64(i+1) * guard(func() uint64 { return fs[i].join(w) })
		}
		return v
	case 2: // a future joined by both halves of a Join, their subtrees, and its forker
		f := pr.fork(w, sub(2, inh, true))
		half := func(i uint64) func(*pool.Worker) uint64 {
			return func(w *pool.Worker) uint64 {
				return sub(i, f, false)(w) + pr.guard(func() uint64 { return f.join(w) })
			}
		}
		var a, b uint64
		if w == nil {
			a, b = half(0)(nil), half(1)(nil)
		} else {
			pr.at(s, func() uint64 { a, b = forkjoin.Join(w, half(0), half(1)); return 0 })
		}
		return v + 5*a + b + guard(func() uint64 { return f.join(w) })
	case 3: // siblings joining siblings: a younger one an older one, and an
		// older one a younger one (after a latch tells it the younger exists)
		f1 := pr.fork(w, sub(0, inh, true))
		f2 := pr.fork(w, func(w *pool.Worker) uint64 {
			return sub(1, inh, false)(w) + 3*pr.guard(func() uint64 { return f1.join(w) })
		})
		var forked sched.Latch
		var g2 atomic.Pointer[csFut]
		g1 := pr.fork(w, func(w *pool.Worker) uint64 {
			if w != nil {
				schedtest.W(w).WaitFor(&forked)
			}
			x := sub(2, inh, false)(w)
			return x + 7*pr.guard(func() uint64 { return g2.Load().join(w) })
		})
		g2.Store(pr.fork(w, sub(3, inh, true)))
		forked.Set()
		order := []*csFut{f2, f1, g1, g2.Load()}
		if (h>>30)%2 == 0 {
			order = []*csFut{g2.Load(), g1, f1, f2}
		}
		for i, f := range order {
			v += uint64(2*i+1) * guard(func() uint64 { return f.join(w) })
		}
		return v
	case 4: // Invoke on the worker
		if w == nil {
			return v + 7*sub(0, inh, false)(nil)
		}
		return v + 7*pr.at(s, func() uint64 { return forkjoin.Invoke(w, sub(0, inh, false)) })
	case 5: // an unjoined future (which may panic or Goexit) next to a Join
		u := pr.fork(w, func(w *pool.Worker) uint64 {
			return pr.eval(w, child(2), depth-1, nil, true, true)
		})
		var a, b uint64
		if w == nil {
			a, b = sub(0, inh, false)(nil), sub(1, inh, false)(nil)
			pr.guard(func() uint64 { return u.join(nil) }) // run it, for the counts
		} else {
			pr.at(s, func() uint64 { a, b = forkjoin.Join(w, sub(0, inh, false), sub(1, inh, false)); return 0 })
		}
		return v + (a ^ b)
	case 6, 7: // a task block: tasks that Run tasks, a Wait, a last task that may panic
		k := 2 + int((h>>16)%3)
		res := make([]uint64, 2*k+1)
		nestedRun := (h>>32)%2 == 0
		waitMid := (h>>33)%2 == 0
		lastPanics := (h>>34)%2 == 0
		return v + guard(func() uint64 {
			csDefine(w, func(b csBlock) {
				for i := 0; i < k; i++ {
					b.run(func(w *pool.Worker) {
						if nestedRun && i%2 == 0 {
							b.runFrom(w, func(w *pool.Worker) { res[k+i] = sub(uint64(k+i), inh, false)(w) })
						}
						res[i] = sub(uint64(i), inh, false)(w)
					})
					if waitMid && i == k/2 {
						b.wait()
					}
				}
				if lastPanics {
					b.wait() // nothing else may be skipped because of the panic
					b.run(func(w *pool.Worker) {
						res[2*k] = pr.eval(w, child(uint64(2*k)), depth-1, inh, true, false)
					})
				}
			})
			var s uint64
			for i, x := range res {
				s += uint64(i+1) * x
			}
			return s
		})
	default: // Invoke on a nested pool, from a task of this one
		// The same value either way; only a task of the outer pool uses
		// the nested one (a task that blocked in Invoke on its own pool
		// could occupy its only worker).
		f := func(w *pool.Worker) uint64 { return pr.eval(w, child(0), depth-1, nil, false, false) }
		if w == nil || pr.nested == nil || w.Pool() == pr.nested || depth < 3 {
			return v + 11*pr.at(s, func() uint64 { return f(w) })
		}
		return v + 11*pr.at(s, func() uint64 { return forkjoin.Invoke(pr.nested, f) })
	}
}

// csCheckStats checks what holds for a closed pool's stats whatever ran on
// it, the injector balance included: only submissions and overflows go
// through the injector (task blocks spawn onto deques, depth first).
func csCheckStats(t *testing.T, name string, s pool.Stats, workers int) {
	t.Helper()
	if s.Total.InjectorPops != s.Submitted+s.Total.Overflows {
		t.Errorf("%s: InjectorPops = %d, want Submitted + Overflows = %d + %d",
			name, s.Total.InjectorPops, s.Submitted, s.Total.Overflows)
	}
	if len(s.Workers) != workers {
		t.Fatalf("%s: %d worker entries, want %d", name, len(s.Workers), workers)
	}
	if sum := sumWorkers(s.Workers); sum != s.Total {
		t.Errorf("%s: Total %+v is not the sum of the workers %+v", name, s.Total, sum)
	}
	for i, w := range s.Workers {
		if w.Wakeups > w.Sleeps {
			t.Errorf("%s: worker %d woke %d times but slept %d", name, i, w.Wakeups, w.Sleeps)
		}
	}
}

type csWant struct {
	v     uint64
	nodes int64
	sum   uint64
}

// csWants evaluates the programs for seeds 0..n-1 sequentially.
func csWants(n, depth int) []csWant {
	wants := make([]csWant, n)
	for s := range wants {
		pr := csProg{nested: nil}
		wants[s].v = pr.eval(nil, uint64(s), depth, nil, false, false)
		wants[s].nodes = pr.nodes.Load()
		wants[s].sum = pr.sum.Load()
		if b := pr.bad.Load(); b != nil {
			panic(b)
		}
	}
	return wants
}

// csCheck compares a program run on a pool with its sequential evaluation.
// The node count and checksum are final only once the pool has closed
// (unjoined futures may still be running before).
func csCheck(t *testing.T, name string, s int, pr *csProg, got uint64, want csWant) {
	t.Helper()
	if b := pr.bad.Load(); b != nil {
		t.Errorf("%s seed %d: %s", name, s, b)
	}
	if got != want.v {
		t.Errorf("%s seed %d: result %d, want %d", name, s, got, want.v)
	}
	if n, sum := pr.nodes.Load(), pr.sum.Load(); n != want.nodes || sum != want.sum {
		t.Errorf("%s seed %d: %d nodes ran (checksum %x), want %d (%x): a task was lost or ran twice",
			name, s, n, sum, want.nodes, want.sum)
	}
}

func TestCarrierStressPrograms(t *testing.T) {
	// About 30 s alone with FJ_LONG on 2 cores, and twice that beside the
	// other packages' tests (go test runs them at once): the deadline
	// catches a hang, not a slow machine.
	fjtest.Deadline(t, 5*time.Minute)
	seeds := small(72, 56)
	if !fjtest.Long() {
		seeds = 24 // FJ_LONG (CI) runs them all
	}
	const depth = 7
	const submitters = 3
	wants := csWants(seeds, depth)
	var totalParks uint64
	for _, workers := range []int{1, 2, 3, 8} {
		for _, capacity := range []int{1, 4, 1024} {
			name := fmt.Sprintf("workers=%d capacity=%d", workers, capacity)
			p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity))
			nested := pool.New(pool.WithWorkers(1+workers%2), pool.WithDequeCapacity(capacity))
			progs := make([]csProg, seeds)
			owners := csOwners(p, nested)
			got := make([]uint64, seeds)
			var wg sync.WaitGroup
			for g := 0; g < submitters; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for s := g; s < seeds; s += submitters {
						pr := &progs[s]
						pr.nested = nested
						pr.owners = owners
						f := func(w *pool.Worker) uint64 { return pr.eval(w, uint64(s), depth, nil, false, false) }
						if s%2 == 0 {
							got[s] = forkjoin.Invoke(p, f)
						} else {
							taskblock.Define(p, func(b *taskblock.Block) {
								b.Run(func(w *pool.Worker) { got[s] = f(w) })
							})
						}
					}
				}()
			}
			wg.Wait()
			p.Close()
			nested.Close()
			for s := range progs {
				csCheck(t, name, s, &progs[s], got[s], wants[s])
			}
			st := p.Stats()
			csCheckStats(t, name, st, workers)
			if workers == 1 && st.Total.Parks == 0 {
				// Deterministic on one worker: a future joined while a
				// younger fork sits above it on the deque always parks.
				t.Errorf("%s: no task parked", name)
			}
			totalParks += st.Total.Parks
			if t.Failed() {
				t.Fatalf("%s:\n%s", name, st)
			}
			t.Logf("%s: %d parks, %d steals, %d overflows", name, st.Total.Parks, st.Total.Steals, st.Total.Overflows)
		}
	}
	if totalParks == 0 {
		t.Error("no task parked on any pool: the carrier paths were not exercised")
	}
}

// Close right after submitting: the programs, their parked carriers and
// their unjoined futures all finish before Close returns, and every carrier
// goroutine (spares included) exits (goleak checks in TestMain).
func TestCarrierStressCloseWhileParked(t *testing.T) {
	fjtest.Deadline(t, 5*time.Minute) // as TestCarrierStressPrograms
	seeds := small(40, 24)
	const depth = 6
	wants := csWants(seeds, depth)
	for _, workers := range []int{1, 2, 3, 8} {
		for _, capacity := range []int{1, 4, 1024} {
			name := fmt.Sprintf("workers=%d capacity=%d", workers, capacity)
			p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity))
			progs := make([]csProg, seeds)
			owners := csOwners(p)
			got := make([]uint64, seeds)
			for s := range progs {
				pr := &progs[s]
				pr.owners = owners
				sched.Submit(sched.From[sched.Pool](p), func(w *pool.Worker) {
					got[s] = pr.guard(func() uint64 { return pr.eval(w, uint64(s), depth, nil, false, false) })
				})
			}
			p.Close()
			for s := range progs {
				csCheck(t, name, s, &progs[s], got[s], wants[s])
			}
			csCheckStats(t, name, p.Stats(), workers)
			if t.Failed() {
				t.FailNow()
			}
		}
	}
}

// Deep chains of waits on one worker: every task parks while its carrier's
// worker runs the next one, so the number of parked carriers grows with the
// depth; all of them resume, in LIFO order, and exit at Close.
func TestCarrierStressDeepParking(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	depth := small(2000, 300)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(4))
		var down func(w *pool.Worker, d int) int
		down = func(w *pool.Worker, d int) int {
			if d == 0 {
				return 0
			}
			// Fork the child, then a younger sibling, then join the child
			// first: takeBack finds the sibling and the join parks.
			c := forkjoin.Fork(w, func(w *pool.Worker) int { return down(w, d-1) })
			s := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
			return c.Join(w) + s.Join(w)
		}
		before := p.Stats()
		if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return down(w, depth) }); got != depth {
			t.Errorf("workers=%d: got %d, want %d", workers, got, depth)
		}
		p.Close()
		parks := p.Stats().Sub(before).Total.Parks
		if workers == 1 && parks < uint64(depth) {
			t.Errorf("workers=1: %d parks, want at least %d", parks, depth)
		}
		t.Logf("workers=%d depth=%d: %d parks", workers, depth, parks)
	}
}

// taskblock's depth-first spawning with carriers: the body parks, and a
// task of the block, popped by the worker's next carrier (a different
// goroutine), runs another task of the block with RunFrom. The push happens
// on the goroutine that holds the worker, which is what the deque needs:
// the race detector (and the debug check of the holder) stays quiet, and
// the worker's own deque is used, not the injector.
func TestCarrierStressBlockRunFromAnotherCarrier(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var bodyG, taskG int64
	var ranX1, ranY atomic.Bool
	taskblock.Define(p, func(b *taskblock.Block) {
		w := b.Worker()
		bodyG = sched.Goid()
		var resumed sched.Latch
		// x1 stays below x2, so that popping x2 does not take the deque's
		// last item (which counts as a departure).
		b.Run(func(*pool.Worker) { ranX1.Store(true) })
		b.Run(func(w *pool.Worker) { // x2
			taskG = sched.Goid()
			b.RunFrom(w, func(*pool.Worker) { ranY.Store(true) }) // Y
			resumed.Set()
		})
		// Nobody but this worker can run x2, so this parks, and the
		// worker's next carrier pops x2.
		schedtest.W(w).WaitFor(&resumed)
	})
	if bodyG == taskG {
		t.Fatalf("the task ran on the body's goroutine %d: the body did not park", bodyG)
	}
	// The Define itself is the only task that went through the injector:
	// Y went on the worker's deque from the task's carrier. The counters
	// are exact once the pool is closed; right after Define returns the
	// worker may not have published them yet.
	p.Close()
	if st := p.Stats(); st.Total.InjectorPops != 1 || st.Total.Overflows != 0 {
		t.Errorf("injector pops %d, overflows %d; want 1 (the Define) and 0", st.Total.InjectorPops, st.Total.Overflows)
	}
	if !ranX1.Load() || !ranY.Load() {
		t.Errorf("ranX1=%v ranY=%v after Define, want both", ranX1.Load(), ranY.Load())
	}
}
