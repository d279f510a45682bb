package taskblock_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// mix is splitmix64's finaliser: a cheap, well-spread hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// scope is a block of a random program as seen by the code inside it: the
// block (nil when evaluating sequentially) and the accumulator its Define
// adds to its own result once it has returned. Tasks that any code inside
// the block runs into it with Run add their results there.
type scope struct {
	b   *taskblock.Block
	acc *atomic.Uint64
}

// program evaluates a random tree of blocks, Joins and Runs, its shape fixed
// by seed. With w == nil it runs sequentially, which gives the expected
// result and number of nodes; with a worker, every node uses the construct
// it names. Results combine children in an order-dependent way, so a
// result delivered to the wrong place shows, and the node count shows a
// lost or doubly run task. Code at any depth runs tasks into any of its
// enclosing blocks (from tasks, from Join closures, from the bodies and
// tasks of nested blocks, on whichever worker it landed), which is what
// exercises Run's choice between the body's worker's deque and the
// injector.
type program struct {
	nodes atomic.Int64
	// elsewhere counts Runs into a block called on another worker than
	// the block's body's: informative only.
	elsewhere atomic.Int64
}

func (pr *program) eval(w *pool.Worker, scopes []scope, seed uint64, depth int) uint64 {
	pr.nodes.Add(1)
	h := mix(seed)
	child := func(i uint64) uint64 { return seed*31 + i + 1 }
	if depth == 0 || h%13 == 0 {
		return h % 1000
	}
	sub := func(i uint64, scopes []scope) func(*pool.Worker) uint64 {
		return func(w *pool.Worker) uint64 { return pr.eval(w, scopes, child(i), depth-1) }
	}
	// runInto runs child i as a task of an enclosing block chosen by the
	// seed; its result goes to that block's accumulator.
	runInto := func(w *pool.Worker, i uint64) {
		s := scopes[(h>>20+i)%uint64(len(scopes))]
		inner := scopes[:slices.Index(scopes, s)+1] // the task runs inside s
		if w == nil {
			s.acc.Add(mix(sub(i, inner)(nil)))
			return
		}
		if w != s.b.Worker() {
			pr.elsewhere.Add(1)
		}
		s.b.RunFrom(w, func(w *pool.Worker) { s.acc.Add(mix(sub(i, inner)(w))) })
	}
	kind := (h >> 8) % 7
	if len(scopes) == 0 && kind >= 3 {
		kind = 0 // nothing to run into yet: open a block
	}
	switch kind {
	case 0, 1: // a block whose tasks write results; kind 1 waits halfway
		k := 1 + (h>>16)%4
		res := make([]uint64, 2*k)
		var acc atomic.Uint64
		body := func(s scope) {
			inner := append(slices.Clip(scopes), s)
			for i := uint64(0); i < k; i++ {
				if w == nil {
					res[i] = sub(i, inner)(nil)
				} else {
					s.b.Run(func(w *pool.Worker) { res[i] = sub(i, inner)(w) })
				}
			}
			if kind == 1 {
				if w != nil {
					s.b.Wait()
				}
				// After the join point, more tasks that read the first
				// results.
				for i := uint64(0); i < k; i++ {
					f := func(w *pool.Worker) { res[k+i] = res[i] ^ sub(k+i, inner)(w) }
					if w == nil {
						f(nil)
					} else {
						s.b.Run(f)
					}
				}
			}
		}
		if w == nil {
			body(scope{acc: &acc})
		} else {
			taskblock.Define(w, func(b *taskblock.Block) { body(scope{b: b, acc: &acc}) })
		}
		v := acc.Load()
		for i, r := range res {
			v += uint64(i+1) * r
		}
		return v
	case 2: // a Join, each side of which may open blocks of its own
		if w == nil {
			return 3*sub(0, scopes)(nil) + sub(1, scopes)(nil)
		}
		a, b := forkjoin.Join(w, sub(0, scopes), sub(1, scopes))
		return 3*a + b
	case 3: // Run into an enclosing block, from here
		runInto(w, 0)
		return h % 1000
	case 4: // Run into an enclosing block from both closures of a Join
		side := func(i uint64) func(*pool.Worker) uint64 {
			return func(w *pool.Worker) uint64 {
				runInto(w, i)
				return sub(i+2, scopes)(w)
			}
		}
		if w == nil {
			return 5*side(0)(nil) + side(1)(nil)
		}
		a, b := forkjoin.Join(w, side(0), side(1))
		return 5*a + b
	case 5: // a DefineErr block whose tasks all succeed
		k := 1 + (h>>16)%3
		res := make([]uint64, k)
		var acc atomic.Uint64
		if w == nil {
			inner := append(slices.Clip(scopes), scope{acc: &acc})
			for i := uint64(0); i < k; i++ {
				res[i] = sub(i, inner)(nil)
			}
		} else {
			err := taskblock.DefineErr(w, func(b *taskblock.Block) error {
				inner := append(slices.Clip(scopes), scope{b: b, acc: &acc})
				for i := uint64(0); i < k; i++ {
					b.Go(func(w *pool.Worker) error { res[i] = sub(i, inner)(w); return nil })
				}
				return nil
			})
			if err != nil {
				panic(err)
			}
		}
		v := 7 * acc.Load()
		for i, r := range res {
			v += uint64(i+3) * r
		}
		return v
	default: // Run into an enclosing block, then recurse here
		runInto(w, 1)
		return 11 * sub(0, scopes)(w)
	}
}

func TestRandomBlockPrograms(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	seeds := fjtest.Stress(70, 200, 40) // 200 with FJ_LONG: 9 s on two cores
	const depth = 8
	// Odd seeds run in a root block Defined from the pool, into which
	// code at any depth may run tasks; even ones start with forkjoin.Invoke.
	root := func(seed int) bool { return seed%2 == 1 }
	type want struct {
		v     uint64
		nodes int64
	}
	wants := make([]want, seeds)
	var total int64
	for s := range wants {
		var pr program
		if root(s) {
			var acc atomic.Uint64
			wants[s].v = pr.eval(nil, []scope{{acc: &acc}}, uint64(s), depth) + acc.Load()
		} else {
			wants[s].v = pr.eval(nil, nil, uint64(s), depth)
		}
		wants[s].nodes = pr.nodes.Load()
		total += wants[s].nodes
	}
	t.Logf("%d programs, %d nodes in all", seeds, total)
	for _, workers := range workerCounts {
		for _, capacity := range []int{1024, 4} {
			where := fmt.Sprintf("workers=%d capacity=%d", workers, capacity)
			p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity))
			progs := make([]program, seeds)
			var elsewhere int64
			for s := range progs {
				var got uint64
				if root(s) {
					var acc atomic.Uint64
					taskblock.Define(p, func(b *taskblock.Block) {
						got = progs[s].eval(b.Worker(), []scope{{b: b, acc: &acc}}, uint64(s), depth)
					})
					got += acc.Load()
				} else {
					got = forkjoin.Invoke(p, func(w *pool.Worker) uint64 { return progs[s].eval(w, nil, uint64(s), depth) })
				}
				if got != wants[s].v {
					t.Fatalf("%s: seed %d: result %d, want %d", where, s, got, wants[s].v)
				}
				// Every block has returned: all the tasks run into them
				// have finished.
				if n := progs[s].nodes.Load(); n != wants[s].nodes {
					t.Fatalf("%s: seed %d: %d nodes ran by the time the program returned, want %d", where, s, n, wants[s].nodes)
				}
				elsewhere += progs[s].elsewhere.Load()
			}
			p.Close()
			t.Logf("%s: %d Runs from another worker than the block's body's; %v", where, elsewhere, p.Stats())
		}
	}
}

// treeSize is the number of tasks runTree(w, b, depth, fanout, ...) runs.
func treeSize(depth, fanout int) int64 {
	if depth == 0 {
		return 1
	}
	return 1 + int64(fanout)*treeSize(depth-1, fanout)
}

// The tests below make a task run on another worker than the body's
// without depending on timing: the code that would otherwise run it
// spins, without helping, until it has started, so only a thief can have
// started it. They need two workers or more.

// A task stolen from the body's worker runs tasks into the block directly,
// from a Join's closures and from a nested block's body and tasks; the body
// runs more after the steal. Define waits for all of them.
func TestRunFromStolenTask(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const d, f = 2, 3
	unit := treeSize(d, f)
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(50, 10); round++ {
			where := fmt.Sprintf("workers=%d round %d", workers, round)
			var started atomic.Bool
			var bodyID, taskID int
			var ran atomic.Int64
			taskblock.Define(p, func(b *taskblock.Block) {
				bodyID = b.Worker().ID()
				b.Run(func(w *pool.Worker) {
					taskID = w.ID()
					started.Store(true)
					for i := 0; i < 20; i++ {
						runTree(w, b, d, f, &ran)
					}
					forkjoin.Join(w,
						func(w *pool.Worker) int { runTree(w, b, d, f, &ran); return 0 },
						func(w *pool.Worker) int { runTree(w, b, d, f, &ran); return 0 })
					taskblock.Define(w, func(nb *taskblock.Block) {
						runTree(w, b, d, f, &ran)
						nb.Run(func(w *pool.Worker) { runTree(w, b, d, f, &ran) })
					})
				})
				for !started.Load() {
					spin(b.Worker()) // not helping: only a thief can start the task
				}
				for i := 0; i < 20; i++ {
					runTree(b.Worker(), b, d, f, &ran)
				}
			})
			if taskID == bodyID {
				t.Fatalf("%s: the task ran on the body's worker %d", where, bodyID)
			}
			if got, want := ran.Load(), 44*unit; got != want {
				t.Fatalf("%s: Define returned after %d of %d tasks", where, got, want)
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d", workers))
		p.Close()
	}
}

// A task's Join whose fb is stolen: fb (on another worker than fa) and fa
// both run tasks into the block, as does a nested block inside fb.
func TestRunFromJoinClosureOnAnotherWorker(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const d, f = 2, 3
	unit := treeSize(d, f)
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(50, 10); round++ {
			where := fmt.Sprintf("workers=%d round %d", workers, round)
			var ran atomic.Int64
			var faID, fbID int
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(w *pool.Worker) {
					var fbStarted atomic.Bool
					forkjoin.Join(w,
						func(w *pool.Worker) int {
							faID = w.ID()
							for !fbStarted.Load() {
								spin(w) // not helping: fb must be stolen
							}
							runTree(w, b, d, f, &ran)
							return 0
						},
						func(w *pool.Worker) int {
							fbID = w.ID()
							fbStarted.Store(true)
							for i := 0; i < 20; i++ {
								runTree(w, b, d, f, &ran)
							}
							taskblock.Define(w, func(nb *taskblock.Block) {
								nb.Run(func(w *pool.Worker) { runTree(w, b, d, f, &ran) })
								runTree(w, b, d, f, &ran)
							})
							return 0
						})
				})
			})
			if faID == fbID {
				t.Fatalf("%s: fa and fb ran on the same worker %d", where, faID)
			}
			if got, want := ran.Load(), 23*unit; got != want {
				t.Fatalf("%s: Define returned after %d of %d tasks", where, got, want)
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d", workers))
		p.Close()
	}
}

// A nested block's task, stolen from the nested body's worker, runs tasks
// into the outer block and into its own; the nested body does too.
func TestRunFromNestedBlockTaskOnAnotherWorker(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const d, f = 2, 3
	unit := treeSize(d, f)
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(50, 10); round++ {
			where := fmt.Sprintf("workers=%d round %d", workers, round)
			var ran, nestedRan atomic.Int64
			var nestedBodyID, nestedTaskID int
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(w *pool.Worker) {
					taskblock.Define(w, func(nb *taskblock.Block) {
						nestedBodyID = nb.Worker().ID()
						var started atomic.Bool
						nb.Run(func(w *pool.Worker) {
							nestedTaskID = w.ID()
							started.Store(true)
							for i := 0; i < 20; i++ {
								runTree(w, b, d, f, &ran)
								runTree(w, nb, d, f, &nestedRan)
							}
						})
						for !started.Load() {
							spin(w) // not helping: only a thief can start it
						}
						runTree(w, b, d, f, &ran)
						runTree(w, nb, d, f, &nestedRan)
					})
					// The nested block has returned: its own tasks are done
					// (the outer block's may still run).
					if got, want := nestedRan.Load(), 21*unit; got != want {
						t.Errorf("%s: nested Define returned after %d of %d tasks", where, got, want)
					}
				})
			})
			if nestedTaskID == nestedBodyID {
				t.Fatalf("%s: the nested task ran on the nested body's worker %d", where, nestedBodyID)
			}
			if got, want := ran.Load(), 21*unit; got != want {
				t.Fatalf("%s: Define returned after %d of %d tasks", where, got, want)
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d", workers))
		p.Close()
	}
}
