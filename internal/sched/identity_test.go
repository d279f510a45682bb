package sched

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	gid "github.com/petermattis/goid"

	"github.com/forkjoin/fj/internal/fjtest"
)

// The fast id and the runtime.Stack header agree, on many goroutines at
// once (identity.md, I1), and this Go release takes the fast path.
func TestGoidAgreesWithStack(t *testing.T) {
	if os.Getenv("FJ_GOID") == "" && !goidFast {
		t.Fatal("the fast goroutine id disagrees with runtime.Stack on this Go release: fj runs on the slow path")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if f, s := gid.Get(), stackGoid(); f != s || goid() != s {
				errs <- fmt.Sprintf("fast %d, stack %d, goid %d", f, s, goid())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Caller answers for every kind of caller: a task of the pool (its own
// worker), the same task after it parked and resumed, a goroutine
// outside, a goroutine a task started, a task of another pool.
func TestCallerAnswers(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, n := range []int{1, 2, 8, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := New(Config{Workers: n, DequeCapacity: 64, Name: "p"})
			defer p.Close()
			q := New(Config{Workers: 2, DequeCapacity: 64, Name: "q"})
			defer q.Close()
			if p.Caller() != nil {
				t.Fatal("Caller from outside the pool: not nil")
			}
			var mu sync.Mutex
			fail := func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf(format, args...)
			}
			p.Run(func(w *Worker) {
				if c := p.Caller(); c != w {
					fail("Caller in a task: %v, want worker %d", c, w.id)
				}
				if !w.held() {
					fail("Held in a task: false")
				}
				if q.Caller() != nil {
					fail("q.Caller in a task of p: not nil")
				}
				// Park: wait for a latch that another task sets.
				var l Latch
				var other sync.WaitGroup
				other.Add(1)
				go func() { // outside the pool: a goroutine the task started
					defer other.Done()
					if p.Caller() != nil {
						fail("Caller on a goroutine a task started: not nil")
					}
					q.Run(func(qw *Worker) {
						if p.Caller() != nil {
							fail("p.Caller in a task of q: not nil")
						}
						if q.Caller() != qw {
							fail("q.Caller in a task of q: wrong worker")
						}
					})
					l.Set()
				}()
				w.WaitFor(&l)
				other.Wait()
				if c := p.Caller(); c != w {
					fail("Caller after a park: %v, want worker %d", c, w.id)
				}
			})
			if p.Caller() != nil {
				t.Fatal("Caller from outside the pool after a task: not nil")
			}
		})
	}
}

// A lookup reads at most eight slots whatever the number of workers, from
// a task and from outside, and no holder overflows the table (I2, I5).
func TestCallerProbesBounded(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	countProbes = true
	defer func() { countProbes = false }()
	for _, n := range []int{2, 8, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := New(Config{Workers: n, DequeCapacity: 64, Name: "p"})
			defer p.Close()
			const lookups = 1000
			// Occupy every worker at once, so that all n holders are in
			// the table while they look themselves up.
			var started, release sync.WaitGroup
			started.Add(n)
			release.Add(1)
			var wrong sync.Map
			var done sync.WaitGroup
			for i := 0; i < n; i++ {
				done.Add(1)
				go p.Run(func(w *Worker) {
					defer done.Done()
					started.Done()
					release.Wait()
					for k := 0; k < lookups; k++ {
						if p.Caller() != w {
							wrong.Store(w.id, true)
						}
					}
				})
			}
			started.Wait()
			probes.Store(0)
			release.Done()
			done.Wait()
			wrong.Range(func(k, _ any) bool { t.Errorf("worker %v: Caller was wrong", k); return true })
			if o := p.holders.overflow.Load(); o != 0 {
				t.Errorf("%d holders overflowed a table of %d buckets", o, len(p.holders.buckets))
			}
			if got, max := probes.Load(), int64(n*lookups*2*bucketSlots); got > max {
				t.Errorf("%d probes for %d lookups: more than %d per lookup", got, n*lookups, 2*bucketSlots)
			}
			probes.Store(0)
			for k := 0; k < lookups; k++ {
				if p.Caller() != nil {
					t.Fatal("Caller from outside: not nil")
				}
			}
			if got := probes.Load(); got != lookups*2*bucketSlots {
				t.Errorf("outside: %d probes for %d lookups, want %d each", got, lookups, 2*bucketSlots)
			}
		})
	}
}

// The slow path (the runtime.Stack parse, forced by FJ_GOID=stack as if a
// Go release had moved the id) gives the same answers: the tests above
// run again in a child process on it.
func TestGoidSlowPath(t *testing.T) {
	if os.Getenv("FJ_GOID") != "" {
		if goidFast {
			t.Fatal("FJ_GOID=stack did not force the slow path")
		}
		return
	}
	fjtest.Deadline(t, 120*time.Second)
	cmd := exec.Command(os.Args[0], "-test.run=^(TestGoidSlowPath|TestGoidAgreesWithStack|TestCallerAnswers|TestCallerProbesBounded)$", "-test.v")
	cmd.Env = append(os.Environ(), "FJ_GOID=stack")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("slow-path run failed: %v\n%s", err, out)
	}
}

// BenchmarkGoid compares the two ways of reading the goroutine id.
func BenchmarkGoid(b *testing.B) {
	b.Run("impl=fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkID = gid.Get()
		}
	})
	b.Run("impl=stack", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkID = stackGoid()
		}
	})
}

var sinkID int64
var sinkW *Worker

// BenchmarkForkCheck measures the fork path's misuse check (debug.go) on
// the goroutine that holds the worker: the part of every fork and join
// that checks, against a loop that does not.
func BenchmarkForkCheck(b *testing.B) {
	p := New(Config{Workers: 1, DequeCapacity: 64, Name: "p"})
	defer p.Close()
	b.Run("impl=checkDue", func(b *testing.B) {
		p.Run(func(w *Worker) {
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if w.checkDue() {
					w.checkFork("BenchmarkForkCheck")
				}
			}
			b.StopTimer()
		})
	})
	b.Run("impl=none", func(b *testing.B) {
		p.Run(func(w *Worker) {
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkW = w
			}
			b.StopTimer()
		})
	})
}

// BenchmarkCaller measures the lookup from a task at three stack depths
// and three pool sizes, and from outside.
func BenchmarkCaller(b *testing.B) {
	for _, n := range []int{2, 8, 64} {
		p := New(Config{Workers: n, DequeCapacity: 64, Name: "p"})
		for _, depth := range []int{1, 25, 1000} {
			b.Run(fmt.Sprintf("workers=%d/depth=%d", n, depth), func(b *testing.B) {
				p.Run(func(w *Worker) {
					deep(depth, func() {
						b.ResetTimer()
						for i := 0; i < b.N; i++ {
							sinkW = p.Caller()
						}
						b.StopTimer()
					})
				})
			})
		}
		b.Run(fmt.Sprintf("workers=%d/outside", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sinkW = p.Caller()
			}
		})
		p.Close()
	}
}

//go:noinline
func deep(n int, f func()) {
	if n <= 1 {
		f()
		return
	}
	deep(n-1, f)
}
