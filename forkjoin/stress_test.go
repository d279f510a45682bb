package forkjoin_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// mix is splitmix64's finaliser: a cheap, well-spread hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// program evaluates a random tree of forks and joins, its shape fixed by
// seed. With w == nil it runs sequentially, which gives the expected result
// and the expected number of nodes run; with a worker, every node uses the
// fork/join construct it names. Results combine children in an
// order-dependent way, so a result delivered to the wrong join shows, and
// the node count shows a lost (or doubly run) future, joined or not.
type program struct {
	nodes atomic.Int64
}

func (pr *program) eval(w *pool.Worker, seed uint64, depth int) uint64 {
	pr.nodes.Add(1)
	h := mix(seed)
	child := func(i uint64) uint64 { return seed*31 + i + 1 }
	if depth == 0 || h%11 == 0 {
		return h % 1000
	}
	sub := func(i uint64) func(*pool.Worker) uint64 {
		return func(w *pool.Worker) uint64 { return pr.eval(w, child(i), depth-1) }
	}
	switch (h >> 8) % 6 {
	case 0: // Join
		if w == nil {
			return 3*sub(0)(nil) + sub(1)(nil)
		}
		a, b := forkjoin.Join(w, sub(0), sub(1))
		return 3*a + b
	case 1: // several futures, joined in reverse order
		k := 1 + (h>>16)%4
		if w == nil {
			var s uint64
			for i := uint64(0); i < k; i++ {
				s += (i + 1) * sub(i)(nil)
			}
			return s
		}
		fs := make([]*forkjoin.Future[uint64], k)
		for i := range fs {
			fs[i] = forkjoin.Fork(w, sub(uint64(i)))
		}
		var s uint64
		for i := len(fs) - 1; i >= 0; i-- {
			s += uint64(i+1) * fs[i].Join(w)
		}
		return s
	case 2: // a future joined by both sides of a Join, and by its forker
		if w == nil {
			f := sub(2)(nil)
			return 5*(sub(0)(nil)+f) + (sub(1)(nil) + f) + f
		}
		f := forkjoin.Fork(w, sub(2))
		a, b := forkjoin.Join(w,
			func(w *pool.Worker) uint64 { return sub(0)(w) + f.Join(w) },
			func(w *pool.Worker) uint64 { return sub(1)(w) + f.Join(w) })
		return 5*a + b + f.Join(w)
	case 3: // Invoke on the worker
		if w == nil {
			return 7 * sub(0)(nil)
		}
		return 7 * forkjoin.Invoke(w, sub(0))
	case 4: // an unjoined future next to a Join
		if w == nil {
			sub(2)(nil) // for its own unjoined futures
			return sub(0)(nil) ^ sub(1)(nil)
		}
		forkjoin.Fork(w, sub(2))
		a, b := forkjoin.Join(w, sub(0), sub(1))
		return a ^ b
	default: // a Join whose fa joins a future forked before the Join
		if w == nil {
			return 11*(sub(0)(nil)+sub(2)(nil)) + sub(1)(nil)
		}
		f := forkjoin.Fork(w, sub(2))
		a, b := forkjoin.Join(w,
			func(w *pool.Worker) uint64 { return sub(0)(w) + f.Join(w) },
			sub(1))
		return 11*a + b
	}
}

func TestRandomForkJoinPrograms(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	seeds := fjtest.Stress(100, 300, 40) // 300 with FJ_LONG: 13 s on two cores
	const depth = 9
	type want struct {
		v     uint64
		nodes int64
	}
	wants := make([]want, seeds)
	for s := range wants {
		var pr program
		wants[s].v = pr.eval(nil, uint64(s), depth)
		wants[s].nodes = pr.nodes.Load()
	}
	for _, workers := range poolSizes {
		for _, capacity := range []int{1024, 4} {
			p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity))
			progs := make([]program, seeds)
			for s := range progs {
				got := forkjoin.Invoke(p, func(w *pool.Worker) uint64 { return progs[s].eval(w, uint64(s), depth) })
				if got != wants[s].v {
					t.Fatalf("workers=%d capacity=%d seed %d: result %d, want %d", workers, capacity, s, got, wants[s].v)
				}
			}
			p.Close()
			// Every node ran exactly once, those in unjoined futures
			// included, by the time Close returns.
			for s := range progs {
				if got := progs[s].nodes.Load(); got != wants[s].nodes {
					t.Fatalf("workers=%d capacity=%d seed %d: %d nodes ran, want %d",
						workers, capacity, s, got, wants[s].nodes)
				}
			}
			t.Log(fmt.Sprintf("workers=%d capacity=%d: ", workers, capacity) + p.Stats().String())
		}
	}
}
