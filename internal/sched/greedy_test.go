package sched_test

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/wsdeque"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// Greedy scheduling (job.go, E1-E4): a worker never goes to sleep while
// another worker holds a fork it could take. These tests count, with the
// scheduler's test hook, the times a worker parks while another worker
// holds a private task (sched.WatchSleepsWhilePrivate), in the shapes that
// lost it before: a fork made while every worker is busy, after which the
// forker runs a long leaf while another worker turns idle. Nothing here is
// timed: each shape's long leaf lasts until the fork has started elsewhere
// or a sleep was counted, so a lost fork shows as a count, not as a slow
// run (the root benchmark BenchmarkPartlyBusy times the same shapes).

// sink keeps burn's work from being optimised away.
var sink atomic.Uint64

// burn burns about n iterations of CPU: a coarse leaf that never forks.
func burn(n int) {
	x := uint64(n) | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	sink.Add(x & 1)
}

// until spins until cond holds: the long leaf of a shape, which ends once
// what it waits for has happened elsewhere (or a lost fork was counted).
func until(cond func() bool) {
	for !cond() {
		burn(1000)
	}
}

// partlyBusy runs body on one worker of a pool of n workers while every
// other worker runs a task that spins until body calls release: so body's
// forks before release are made while every worker is busy (ctl == 0),
// and the others turn idle at release. lost reports whether a worker has
// parked since then. It returns the number of parks while another worker
// held a private task, over the run, and the pool's steals.
func partlyBusy(t *testing.T, n int, body func(w *pool.Worker, release func(), lost func() bool)) (lost, steals int64) {
	t.Helper()
	parks, whilePrivate, stop := sched.WatchSleeps()
	defer stop()
	p := pool.New(pool.WithWorkers(n))
	var released atomic.Bool
	var started atomic.Int32
	done := make(chan struct{}, n)
	for range n - 1 {
		go func() {
			forkjoin.Invoke(p, func(w *pool.Worker) struct{} {
				started.Add(1)
				until(released.Load)
				return struct{}{}
			})
			done <- struct{}{}
		}()
	}
	for started.Load() != int32(n-1) {
		runtime.Gosched()
	}
	base, basePrivate := parks(), whilePrivate()
	var after atomic.Int64
	forkjoin.Invoke(p, func(w *pool.Worker) struct{} {
		body(w, func() {
			after.Store(parks())
			released.Store(true)
		}, func() bool { return released.Load() && parks() > after.Load() })
		return struct{}{}
	})
	released.Store(true) // should body not have
	for range n - 1 {
		<-done
	}
	p.Close()
	_ = base
	return whilePrivate() - basePrivate, int64(p.Stats().Total.Steals)
}

// The shapes of issue 23's table, each with a fork made while every worker
// is busy and a forker that then runs a leaf that does not fork: the fork
// must be taken by the worker that turns idle, with no sleep while it is
// private.
func TestGreedyForkMadeWhileBusyIsTaken(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	type shape func(w *pool.Worker, release func(), lost func() bool) (ranElsewhere bool)
	// leaf releases the busy workers and runs until the forked half has
	// started (or was lost): the forker's 100 ms leaf of the table.
	leaf := func(release func(), started *atomic.Bool, lost func() bool) {
		release()
		until(func() bool { return started.Load() || lost() })
	}
	shapes := map[string]shape{
		"Join": func(w *pool.Worker, release func(), lost func() bool) bool {
			var started atomic.Bool
			_, other := forkjoin.Join(w,
				func(w *pool.Worker) int { leaf(release, &started, lost); return w.ID() },
				func(w *pool.Worker) int { started.Store(true); return w.ID() })
			return other != w.ID()
		},
		"JoinArgs": func(w *pool.Worker, release func(), lost func() bool) bool {
			var started atomic.Bool
			ids := [2]int{}
			forkjoin.JoinArgs(w, func(w *pool.Worker, i int) struct{} {
				if i == 0 {
					leaf(release, &started, lost)
				} else {
					started.Store(true)
				}
				ids[i] = w.ID()
				return struct{}{}
			}, 0, 1)
			return ids[0] != ids[1]
		},
		"Fork+Future.Join": func(w *pool.Worker, release func(), lost func() bool) bool {
			var started atomic.Bool
			f := forkjoin.Fork(w, func(w *pool.Worker) int { started.Store(true); return w.ID() })
			leaf(release, &started, lost)
			return f.Join(w) != w.ID()
		},
		"parallel.Do": func(w *pool.Worker, release func(), lost func() bool) bool {
			var started atomic.Bool
			ids := [2]int{}
			parallel.Do(w,
				func(w *pool.Worker) { leaf(release, &started, lost); ids[0] = w.ID() },
				func(w *pool.Worker) { started.Store(true); ids[1] = w.ID() })
			return ids[0] != ids[1]
		},
		"parallel.For over 2": func(w *pool.Worker, release func(), lost func() bool) bool {
			var started atomic.Bool
			ids := [2]int{}
			parallel.For(w, 0, 2, func(w *pool.Worker, i int) {
				if i == 0 {
					leaf(release, &started, lost)
				} else {
					started.Store(true)
				}
				ids[i] = w.ID()
			})
			return ids[0] != ids[1]
		},
		"taskblock.Run": func(w *pool.Worker, release func(), lost func() bool) bool {
			var started atomic.Bool
			other := -1
			taskblock.Define(w, func(b *taskblock.Block) {
				b.Run(func(w *pool.Worker) { started.Store(true); other = w.ID() })
				leaf(release, &started, lost)
			})
			return other != w.ID()
		},
	}
	for name, s := range shapes {
		for round := range fjtest.Small(20, 5) {
			var elsewhere bool
			lost, _ := partlyBusy(t, 2, func(w *pool.Worker, release func(), lost func() bool) {
				elsewhere = s(w, release, lost)
			})
			if lost != 0 || !elsewhere {
				t.Errorf("%s, round %d: %d sleeps while a fork was private; forked half ran on another worker: %v",
					name, round, lost, elsewhere)
				break
			}
		}
	}
}

// A loop of coarse items, started while every worker is busy, exposes half
// of its range before its first step (E3): the worker that turns idle gets
// part of it before it ever parks. For over 8 items, the first of which
// runs until an item has started on the other worker (or that worker
// parked: the loop's rest was hidden).
func TestGreedyLoopStartedWhileBusySplits(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	for round := range fjtest.Small(20, 5) {
		var elsewhere atomic.Bool
		var parked bool
		lost, _ := partlyBusy(t, 2, func(w *pool.Worker, release func(), lost func() bool) {
			me := w.ID()
			parallel.For(w, 0, 8, func(w *pool.Worker, i int) {
				if w.ID() != me {
					elsewhere.Store(true)
				}
				if i == 0 {
					release()
					until(func() bool { return elsewhere.Load() || lost() })
					parked = !elsewhere.Load()
				}
				burn(20_000)
			})
		})
		if lost != 0 || parked {
			t.Fatalf("round %d: %d sleeps while work was private; the idle worker parked before taking an item: %v",
				round, lost, parked)
		}
	}
}

// A loop running under a fork made while every worker was busy splits for
// the worker that turns idle within one step, once that fork is gone (the
// idle worker took it): the second half of a Join, JoinArgs, Do or block
// followed by a For of 60 coarse items. Before, the loop's worker held the
// fork privately, the loop refused to split while its deque held anything,
// and the other worker slept through the whole loop. The first item runs
// until an item has run on the other worker or that worker has parked
// (the fork was exposed when the loop began, so the loop did not split);
// the next step must then split and wake it: the second item runs until
// an item has run elsewhere (a hang here fails at the deadline).
func TestGreedyLoopUnderPrivateForkSplits(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	type run struct {
		me        int
		elsewhere atomic.Bool
	}
	loop := func(w *pool.Worker, release func(), lost func() bool, r *run) {
		r.me = w.ID()
		release()
		parallel.For(w, 0, 60, func(w *pool.Worker, i int) {
			switch {
			case w.ID() != r.me:
				r.elsewhere.Store(true)
			case i == 0:
				until(func() bool { return r.elsewhere.Load() || lost() })
			default:
				until(r.elsewhere.Load)
			}
		})
	}
	quick := func(w *pool.Worker) {}
	shapes := map[string]func(w *pool.Worker, release func(), lost func() bool, r *run){
		"Join": func(w *pool.Worker, release func(), lost func() bool, r *run) {
			forkjoin.Join(w,
				func(w *pool.Worker) int { loop(w, release, lost, r); return 0 },
				func(w *pool.Worker) int { quick(w); return 0 })
		},
		"JoinArgs": func(w *pool.Worker, release func(), lost func() bool, r *run) {
			forkjoin.JoinArgs(w, func(w *pool.Worker, i int) int {
				if i == 0 {
					loop(w, release, lost, r)
				}
				return 0
			}, 0, 1)
		},
		"parallel.Do": func(w *pool.Worker, release func(), lost func() bool, r *run) {
			parallel.Do(w, func(w *pool.Worker) { loop(w, release, lost, r) }, quick)
		},
		"taskblock.Run": func(w *pool.Worker, release func(), lost func() bool, r *run) {
			taskblock.Define(w, func(b *taskblock.Block) {
				b.Run(quick)
				loop(w, release, lost, r)
			})
		},
	}
	for name, s := range shapes {
		for round := range fjtest.Small(10, 3) {
			var r run
			lost, _ := partlyBusy(t, 2, func(w *pool.Worker, release func(), lost func() bool) { s(w, release, lost, &r) })
			if lost != 0 || !r.elsewhere.Load() {
				t.Errorf("%s, round %d: %d sleeps while a fork was private; an item ran on the other worker: %v",
					name, round, lost, r.elsewhere.Load())
				break
			}
		}
	}
}

// A loop nested in the only step of a loop of one iteration (a For over
// one image whose body loops over its pixels) is the only work there is:
// it splits for the worker that turns idle, asleep or not, within one of
// its steps. Its first item runs until an item has run on the other worker
// or that worker has parked; the next step must split and wake it.
func TestGreedyLoopNestedInLastStepSplits(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	for round := range fjtest.Small(10, 3) {
		var elsewhere atomic.Bool
		partlyBusy(t, 2, func(w *pool.Worker, release func(), lost func() bool) {
			me := w.ID()
			parallel.For(w, 0, 1, func(w *pool.Worker, _ int) {
				release()
				parallel.For(w, 0, 60, func(w *pool.Worker, i int) {
					switch {
					case w.ID() != me:
						elsewhere.Store(true)
					case i == 0:
						until(func() bool { return elsewhere.Load() || lost() })
					default:
						until(elsewhere.Load)
					}
				})
			})
		})
		if !elsewhere.Load() {
			t.Fatalf("round %d: no item of the nested loop ran on the other worker", round)
		}
	}
}

// node is a random tree whose leaves are coarse: each burns its own
// amount of work.
type node struct {
	kids []*node
	work int
}

func randomTree(rng *rand.Rand, depth int) *node {
	if depth == 0 || rng.IntN(4) == 0 {
		return &node{work: 20_000 + rng.IntN(80_000)}
	}
	n := &node{kids: make([]*node, 1+rng.IntN(3))}
	for i := range n.kids {
		n.kids[i] = randomTree(rng, depth-1)
	}
	return n
}

// walk forks the children of every node with Join (a binary split of the
// children), and runs the leaves' work; the first leaf calls first.
func walk(w *pool.Worker, n *node, first *func()) int {
	if len(n.kids) == 0 {
		if f := *first; f != nil {
			*first = nil
			f()
		}
		burn(n.work)
		return 1
	}
	return walkKids(w, n.kids, first)
}

func walkKids(w *pool.Worker, kids []*node, first *func()) int {
	if len(kids) == 1 {
		return walk(w, kids[0], first)
	}
	m := len(kids) / 2
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return walkKids(w, kids[:m], first) },
		func(w *pool.Worker) int { return walkKids(w, kids[m:], first) })
	return a + b
}

// Random trees of coarse leaves, started while every other worker is busy
// and released by the first leaf (so that every fork on the way down to it
// is made while every worker is busy), on 2 to 64 workers. No worker may
// sleep while another holds a queued fork, private ones included: a thief
// that takes a worker's last exposed fork leaves that worker's younger
// forks private, and an idle worker takes those too (wsdeque.md, D8; G2;
// sleep.md, S2a). Where the platform has no heavy barrier, private tasks
// wait for their forker, and the count is bounded by n-1 per steal, as
// it was before private steals.
func TestGreedyRandomTreesOfCoarseLeaves(t *testing.T) {
	fjtest.Deadline(t, 5*time.Minute)
	greedyTrees(t, "Join", walk)
}

// The same with nodes written as Cilk writes them: spawn every child but
// the last (Spawn, or Fork and Future.Join), run the last child's subtree,
// then join the spawned ones. The forks of a node are siblings in one
// deque, so a thief that takes the oldest leaves the younger ones private
// while the node's own subtree runs: the shape of issue 30's table.
func TestGreedyRandomTreesSpawnThenLeaf(t *testing.T) {
	fjtest.Deadline(t, 5*time.Minute)
	t.Run("Spawn", func(t *testing.T) { greedyTrees(t, "Spawn", walkSpawn) })
	t.Run("Fork", func(t *testing.T) { greedyTrees(t, "Fork", walkFork) })
}

func greedyTrees(t *testing.T, form string, walk func(w *pool.Worker, n *node, first *func()) int) {
	for _, n := range []int{2, 4, 8, 64} {
		var lost, steals, leaves int64
		for seed := range uint64(fjtest.Stress(2, 6, 2)) {
			tree := randomTree(rand.New(rand.NewPCG(seed, uint64(n))), 7)
			l, s := partlyBusy(t, n, func(w *pool.Worker, release func(), _ func() bool) {
				leaves += int64(walk(w, tree, &release))
			})
			lost += l
			steals += s
		}
		t.Logf("%s, %d workers: %d sleeps while a fork was private, %d steals, %d leaves", form, n, lost, steals, leaves)
		if !wsdeque.PrivateSteals() {
			if lost > steals*int64(n-1) {
				t.Errorf("%s, %d workers: %d sleeps while a fork was private, more than %d per steal (%d steals)",
					form, n, lost, n-1, steals)
			}
			continue
		}
		if lost != 0 {
			t.Errorf("%s, %d workers: %d sleeps while a fork was private, want 0", form, n, lost)
		}
	}
}

// walkSpawn is walk with a node's children spawned, the last one run
// here, and the spawned ones joined in order.
func walkSpawn(w *pool.Worker, n *node, first *func()) int {
	if len(n.kids) == 0 {
		return walk(w, n, first)
	}
	tasks := make([]forkjoin.Task[int], len(n.kids)-1)
	for i, k := range n.kids[:len(n.kids)-1] {
		tasks[i] = forkjoin.Spawn(w, func(w *pool.Worker) int { return walkSpawn(w, k, first) })
	}
	sum := walkSpawn(w, n.kids[len(n.kids)-1], first)
	for _, tk := range tasks {
		sum += tk.Join(w)
	}
	return sum
}

// walkFork is walkSpawn with Fork and Future.Join.
func walkFork(w *pool.Worker, n *node, first *func()) int {
	if len(n.kids) == 0 {
		return walk(w, n, first)
	}
	fs := make([]*forkjoin.Future[int], len(n.kids)-1)
	for i, k := range n.kids[:len(n.kids)-1] {
		fs[i] = forkjoin.Fork(w, func(w *pool.Worker) int { return walkFork(w, k, first) })
	}
	sum := walkFork(w, n.kids[len(n.kids)-1], first)
	for _, f := range fs {
		sum += f.Join(w)
	}
	return sum
}
