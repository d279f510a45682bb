package parallel_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// A loop whose bodies block in blocking sections splits the rest of its
// range a task per grain once a body has blocked, whatever options it got
// (split.go, blocked): the bodies after it then wait together. On one
// worker, where a lazy loop never splits, item 0's section returns at once
// and every later item waits in its section until all of them are there,
// a barrier that completes only if no item waits behind another.
func TestBlockingBodiesWaitTogether(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	const n = 300
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	forms := map[string]func(body func(i int), opts ...parallel.Option){
		"For": func(body func(i int), opts ...parallel.Option) {
			parallel.For(p, 0, n, func(_ *pool.Worker, i int) { body(i) }, opts...)
		},
		"ForErr": func(body func(i int), opts ...parallel.Option) {
			if err := parallel.ForErr(p, 0, n, func(_ *pool.Worker, i int) error { body(i); return nil }, opts...); err != nil {
				t.Errorf("ForErr: %v", err)
			}
		},
		"Map": func(body func(i int), opts ...parallel.Option) {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			parallel.Map(p, idx, func(_ *pool.Worker, i int) int { body(i); return i }, opts...)
		},
	}
	for name, form := range forms {
		for _, opt := range []string{"none", "Context", "Stop"} {
			var opts []parallel.Option
			switch opt {
			case "Context":
				opts = append(opts, parallel.Context(context.Background()))
			case "Stop":
				opts = append(opts, parallel.Stop(new(parallel.StopFlag)))
			}
			var arrived atomic.Int64
			all := make(chan struct{})
			var ran atomic.Int64
			form(func(i int) {
				pool.Blocking(func() {
					if i == 0 {
						return // the first body blocks only briefly
					}
					if arrived.Add(1) == n-1 {
						close(all)
					}
					<-all
				})
				ran.Add(1)
			}, opts...)
			if ran.Load() != n {
				t.Errorf("%s, options %s: %d of %d bodies ran", name, opt, ran.Load(), n)
			}
		}
	}
}

// Every index runs exactly once, and a reduction combines in order, when
// bodies block in sections on some items (the first of the range, every
// one, a few scattered), with any options, on 1 to 4 workers, ranges of
// any size: the switch to an eager split (split.go, blocked) must neither
// lose nor repeat a piece of the range, and Reduce's combine still sees
// the pieces left to right.
func TestBlockingBodiesRunEachIndexOnce(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	blocks := map[string]func(i int) bool{
		"first":     func(i int) bool { return i == 0 },
		"every":     func(int) bool { return true },
		"scattered": func(i int) bool { return i%37 == 5 },
	}
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range []int{1, 2, 3, 64, 65, 1000} {
			for bname, blocksAt := range blocks {
				for _, opt := range []string{"none", "Context", "Grain(3)"} {
					var opts []parallel.Option
					switch opt {
					case "Context":
						opts = append(opts, parallel.Context(context.Background()))
					case "Grain(3)":
						opts = append(opts, parallel.Grain(3))
					}
					what := fmt.Sprintf("workers=%d n=%d blocks=%s options=%s", workers, n, bname, opt)
					section := func(i int) {
						if blocksAt(i) {
							pool.Blocking(func() {})
						}
					}

					counts := make([]atomic.Int32, n)
					parallel.For(p, 0, n, func(_ *pool.Worker, i int) { section(i); counts[i].Add(1) }, opts...)
					checkOnce(t, "For "+what, counts)

					counts = make([]atomic.Int32, n)
					if err := parallel.ForErr(p, 0, n, func(_ *pool.Worker, i int) error {
						section(i)
						counts[i].Add(1)
						return nil
					}, opts...); err != nil {
						t.Errorf("ForErr %s: %v", what, err)
					}
					checkOnce(t, "ForErr "+what, counts)

					counts = make([]atomic.Int32, n)
					parallel.ForRange(p, 0, n, func(_ *pool.Worker, lo, hi int) {
						section(lo)
						for i := lo; i < hi; i++ {
							counts[i].Add(1)
						}
					}, opts...)
					checkOnce(t, "ForRange "+what, counts)

					got := parallel.Reduce(p, 0, n, "", func(_ *pool.Worker, lo, hi int) string {
						section(lo)
						var b strings.Builder
						for i := lo; i < hi; i++ {
							b.WriteString(strconv.Itoa(i))
							b.WriteByte(',')
						}
						return b.String()
					}, func(a, b string) string { return a + b }, opts...)
					var want strings.Builder
					for i := range n {
						want.WriteString(strconv.Itoa(i))
						want.WriteByte(',')
					}
					if got != want.String() {
						t.Errorf("Reduce %s: combined out of order or incomplete: %.80q...", what, got)
					}
				}
			}
		}
		p.Close()
	}
}

func checkOnce(t *testing.T, what string, counts []atomic.Int32) {
	t.Helper()
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Errorf("%s: index %d ran %d times", what, i, c)
			return
		}
	}
}

// A body that fails or panics after the loop has switched to an eager
// split stops the call as before: the error is returned, the panic
// re-raised, and no body runs after the call has returned.
func TestBlockingBodiesStop(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	const n = 500
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		errAt := fmt.Errorf("item 300")
		var mu sync.Mutex
		returned := false
		lateBodies := 0
		err := parallel.ForErr(p, 0, n, func(_ *pool.Worker, i int) error {
			pool.Blocking(func() {})
			mu.Lock()
			if returned {
				lateBodies++
			}
			mu.Unlock()
			if i == 300 {
				return errAt
			}
			return nil
		})
		mu.Lock()
		returned = true
		mu.Unlock()
		if err != errAt {
			t.Errorf("workers=%d: ForErr returned %v, want item 300's error", workers, err)
		}
		r := fjtest.Catch(func() {
			parallel.For(p, 0, n, func(_ *pool.Worker, i int) {
				pool.Blocking(func() {})
				if i == 300 {
					panic("item 300")
				}
			})
		})
		if msg := fjtest.PanicMessage(r); !strings.Contains(msg, "item 300") {
			t.Errorf("workers=%d: For panicked with %q, want item 300's panic", workers, msg)
		}
		p.Close() // waits for every task: a body still running would be counted below
		if lateBodies != 0 {
			t.Errorf("workers=%d: %d bodies ran after ForErr returned", workers, lateBodies)
		}
	}
}

// A body that blocks once (a cache fill) does not cost the rest of a loop
// of cheap bodies a task per item: the eager split ends at the first
// eager body that does not block, and the rest runs lazily again. The
// tasks the pool ran are counted once it has closed: about 2 log2(n) for
// the eager spine, far below one per item.
func TestBlockingOnceStaysCheap(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	const n = 100_000
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		var sum atomic.Int64
		parallel.For(p, 0, n, func(_ *pool.Worker, i int) {
			if i == 0 {
				pool.Blocking(func() {})
			}
			sum.Add(int64(i))
		})
		p.Close()
		if sum.Load() != n*(n-1)/2 {
			t.Errorf("workers=%d: sum %d, want %d", workers, sum.Load(), int64(n*(n-1)/2))
		}
		var tasks uint64
		for _, ws := range p.Stats().Workers {
			tasks += ws.Executed
		}
		if tasks > 1000 {
			t.Errorf("workers=%d: %d tasks for %d items of which one blocked, want about 2 log2(n)", workers, tasks, n)
		}
		t.Logf("workers=%d: %d tasks", workers, tasks)
	}
}
