package pool_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

func TestRunRunsOnAWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range []int{1, 2, 5} {
		p := pool.New(pool.WithWorkers(workers))
		if got := p.Workers(); got != workers {
			t.Errorf("WithWorkers(%d): Workers() = %d", workers, got)
		}
		for i := 0; i < small(1000, 100); i++ {
			var gotPool *pool.Pool
			id := -1
			var inner bool
			p.Run(func(w *pool.Worker) {
				gotPool, id = w.Pool(), w.ID()
				// Worker.Run calls f inline, with the same worker.
				w.Run(func(w2 *pool.Worker) { inner = w2 == w })
			})
			if gotPool != p {
				t.Fatalf("workers=%d run %d: w.Pool() = %p, want %p", workers, i, gotPool, p)
			}
			if id < 0 || id >= workers {
				t.Fatalf("workers=%d run %d: w.ID() = %d, want 0..%d", workers, i, id, workers-1)
			}
			if !inner {
				t.Fatalf("workers=%d run %d: Worker.Run passed another worker to f", workers, i)
			}
		}
		p.Close()
	}
}

func TestDefaultWorkers(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New()
	defer p.Close()
	if got, want := p.Workers(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("New().Workers() = %d, want GOMAXPROCS = %d", got, want)
	}
	p2 := pool.New(pool.WithName("named"), pool.WithDequeCapacity(3))
	defer p2.Close()
	if got := p2.Name(); got != "named" {
		t.Errorf("Name() = %q, want %q", got, "named")
	}
	if got := forkjoin.Invoke(p2, func(w *pool.Worker) int { return fibJoin(w, 15) }); got != fibSeq(15) {
		t.Errorf("fib(15) on a pool with deque capacity 3 = %d, want %d", got, fibSeq(15))
	}
}

func TestBadOptionsPanic(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"WithWorkers(0)", func() { pool.New(pool.WithWorkers(0)).Close() }, "WithWorkers(0)"},
		{"WithWorkers(-3)", func() { pool.New(pool.WithWorkers(-3)).Close() }, "WithWorkers(-3)"},
		{"WithDequeCapacity(0)", func() { pool.New(pool.WithDequeCapacity(0)).Close() }, "WithDequeCapacity(0)"},
		{"WithDequeCapacity(-1)", func() { pool.New(pool.WithDequeCapacity(-1)).Close() }, "WithDequeCapacity(-1)"},
	} {
		r := catch(tc.f)
		if msg := panicMessage(r); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic %#v, want a message containing %q", tc.name, r, tc.want)
		}
	}
}

func TestRunNilPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	r := catch(func() { p.Run(nil) })
	if msg := panicMessage(r); !strings.Contains(msg, "nil function") {
		t.Errorf("Run(nil): panic %#v, want a message about a nil function", r)
	}
	var inner any
	p.Run(func(w *pool.Worker) { inner = catch(func() { w.Run(nil) }) })
	if msg := panicMessage(inner); !strings.Contains(msg, "nil function") {
		t.Errorf("Worker.Run(nil): panic %#v, want a message about a nil function", inner)
	}
	var np *pool.Pool
	r = catch(func() { np.Run(func(*pool.Worker) {}) })
	if msg := panicMessage(r); !strings.Contains(msg, "nil *Pool") {
		t.Errorf("Run on a nil *Pool: panic %#v, want a message about a nil *Pool", r)
	}
	// The pool still works.
	ran := false
	p.Run(func(*pool.Worker) { ran = true })
	if !ran {
		t.Error("Run after the nil-function panics did not run f")
	}
}

func TestCloseTwice(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(3))
	p.Run(func(*pool.Worker) {})
	p.Close()
	p.Close()
	if !p.Closed() {
		t.Error("Closed() = false after Close")
	}

	// Concurrently, with and without work having run first.
	for _, warm := range []bool{false, true} {
		p := pool.New(pool.WithWorkers(3))
		if warm {
			forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, 12) })
		}
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); p.Close() }()
		}
		wg.Wait()
		p.Close()
	}
}

func TestUseAfterClosePanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	p.Run(func(*pool.Worker) {})
	p.Close()
	ran := false
	r := catch(func() { p.Run(func(*pool.Worker) { ran = true }) })
	if msg := panicMessage(r); !strings.Contains(msg, "closed") {
		t.Errorf("Run after Close: panic %#v, want a message containing \"closed\"", r)
	}
	r = catch(func() { forkjoin.Invoke(p, func(*pool.Worker) int { ran = true; return 0 }) })
	if msg := panicMessage(r); !strings.Contains(msg, "closed") {
		t.Errorf("Invoke after Close: panic %#v, want a message containing \"closed\"", r)
	}
	if ran {
		t.Error("a function submitted after Close ran")
	}
	if s := p.Stats(); s.Submitted != 1 {
		t.Errorf("Stats().Submitted = %d after one Run and two rejected submissions, want 1", s.Submitted)
	}
}

// TestDefaultPool runs in a child process: pool.Default's workers live as
// long as the process, so using it here would fail the leak check.
func TestDefaultPool(t *testing.T) {
	if os.Getenv(childEnv) == "default" {
		d := pool.Default()
		if pool.Default() != d {
			fmt.Println("FAIL: Default returned two different pools")
			return
		}
		if d.Workers() != runtime.GOMAXPROCS(0) {
			fmt.Printf("FAIL: Default().Workers() = %d, want %d\n", d.Workers(), runtime.GOMAXPROCS(0))
			return
		}
		if got := forkjoin.Invoke(d, func(w *pool.Worker) int { return fibJoin(w, 15) }); got != fibSeq(15) {
			fmt.Printf("FAIL: fib(15) on Default = %d\n", got)
			return
		}
		r := catch(d.Close)
		fmt.Printf("CLOSE-PANIC: %v\n", r)
		// Default still works after the refused Close.
		if got := forkjoin.Invoke(d, func(w *pool.Worker) int { return fibJoin(w, 10) }); got != fibSeq(10) {
			fmt.Printf("FAIL: fib(10) on Default after Close = %d\n", got)
			return
		}
		fmt.Println("DEFAULT-OK")
		return
	}
	fjtest.Deadline(t, 60*time.Second)
	cmd := exec.Command(os.Args[0], "-test.run=^TestDefaultPool$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=default")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	s := string(out)
	if strings.Contains(s, "FAIL:") || !strings.Contains(s, "DEFAULT-OK") {
		t.Fatalf("child process output:\n%s", s)
	}
	i := strings.Index(s, "CLOSE-PANIC: ")
	line := s[i:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	if !strings.Contains(line, "Default") || strings.Contains(line, "<nil>") {
		t.Errorf("Close on pool.Default(): %q, want a panic that mentions Default", line)
	}
}

func TestCreateAndCloseLeavesNoGoroutines(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for i := 0; i < 100; i++ {
		p := pool.New(pool.WithWorkers(1 + i%4))
		if i%2 == 1 {
			p.Run(func(*pool.Worker) {})
		}
		p.Close()
	}
	goleak.VerifyNone(t)
}

// With tiny deques most forks overflow to the injector; results must not
// change. With one worker every fork after the first overflows. With two, the
// other worker is kept busy while the forks are made, so they overflow too.
func TestOverflow(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const n = 1000
	want := make([]int, n)
	for i := range want {
		want[i] = i * i
	}
	for _, workers := range []int{1, 2} {
		for _, capacity := range []int{1, 2} {
			p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity))
			got := forkjoin.Invoke(p, func(w *pool.Worker) []int {
				var hold atomic.Bool
				var busy *forkjoin.Future[int]
				if workers > 1 {
					// Occupy the other worker: this future can only start
					// by being stolen, as we do not help while spinning.
					var started atomic.Bool
					hold.Store(true)
					busy = forkjoin.Fork(w, func(*pool.Worker) int {
						started.Store(true)
						for hold.Load() {
							runtime.Gosched()
						}
						return 0
					})
					for !started.Load() {
						spin(w)
					}
				}
				fs := make([]*forkjoin.Future[int], n)
				for i := range fs {
					fs[i] = forkjoin.Fork(w, func(*pool.Worker) int { return i * i })
				}
				hold.Store(false)
				res := make([]int, n)
				for i, f := range fs {
					res[i] = f.Join(w)
				}
				if busy != nil {
					busy.Join(w)
				}
				// Joins on top of overflowing forks.
				if got := fibJoin(w, 15); got != fibSeq(15) {
					res[0] = -got
				}
				return res
			})
			p.Close()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("workers=%d capacity=%d: results (-want +got):\n%s", workers, capacity, diff)
			}
			s := p.Stats()
			if s.Total.Overflows == 0 {
				t.Errorf("workers=%d capacity=%d: Stats().Total.Overflows = 0 after %d forks\n%v", workers, capacity, n, s)
			}
			// Every overflowed and every submitted task was taken from the
			// injector exactly once.
			if s.Total.InjectorPops != s.Total.Overflows+s.Submitted {
				t.Errorf("workers=%d capacity=%d: InjectorPops = %d, want Overflows + Submitted = %d + %d\n%v",
					workers, capacity, s.Total.InjectorPops, s.Total.Overflows, s.Submitted, s)
			}
		}
	}
}
