package sched

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/forkjoin/fj/internal/fjtest"
)

// V1 finds the layout where the fast goroutine id works; V4 tells a
// running goroutine from parked ones, naming their waits, and no longer
// answers for a goroutine that has exited; the count of leaves from
// running that V5 relies on grows by one per wait.
func TestLookLayout(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	l := gLook()
	if !l.ok {
		if goidFast {
			t.Fatal("no layout found, though the fast goroutine id works")
		}
		t.Skip("no fast goroutine id here: the pool watches nothing (stall.md, Limits)")
	}
	for _, want := range []string{"chan receive", "chan send", "select", "sync.Cond.Wait", "sync.Mutex.Lock",
		"sync.RWMutex.Lock", "sync.RWMutex.RLock", "sync.WaitGroup.Wait"} {
		found := false
		for _, name := range l.userWait {
			found = found || name == want
		}
		if !found {
			t.Errorf("V1 learnt no reason for %q", want)
		}
	}
	if _, ok := l.look((*gHandle)(getg()), goid()); ok {
		t.Error("the running goroutine looks blocked")
	}
	type parked struct {
		g  unsafe.Pointer
		id int64
	}
	var mu sync.Mutex
	mu.Lock()
	ch := make(chan int)
	got := make(chan parked)
	passed := 0 // under mu
	for i, want := range []string{"chan receive", "sync.Mutex.Lock", "sleep"} {
		park := []func(){
			func() { <-ch },
			func() { mu.Lock(); passed++; mu.Unlock() },
			func() { time.Sleep(50 * time.Millisecond) }, // the wait under test, not a synchronisation
		}[i]
		exited := make(chan struct{})
		go func() { defer close(exited); got <- parked{unsafe.Pointer(getg()), goid()}; park() }()
		h := <-got
		var seen gWait
		for {
			s, ok := l.look((*gHandle)(h.g), h.id)
			if ok {
				seen = s
				break
			}
			if l.gID(h.g, l.goidOff) != h.id {
				t.Fatalf("%s: the goroutine's id no longer matches", want)
			}
			runtime.Gosched() // it runs until it parks
		}
		if seen.wait != want {
			t.Errorf("parked in %s, the look says %q", want, seen.wait)
		}
		switch want {
		case "chan receive":
			close(ch)
		case "sync.Mutex.Lock":
			mu.Unlock()
		}
		<-exited
		if _, ok := l.look((*gHandle)(h.g), h.id); ok {
			t.Errorf("%s: an exited goroutine still looks blocked", want)
		}
	}
}

// V5: the count a look returns grows by one each time the goroutine waits
// again, and stays the same while it waits.
func TestLookCountsWaits(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	l := gLook()
	if !l.ok {
		t.Skip("no layout here")
	}
	tick := make(chan struct{})
	got := make(chan parked2)
	go func() {
		got <- parked2{unsafe.Pointer(getg()), goid()}
		for range tick {
		}
	}()
	h := <-got
	defer close(tick)
	wait := func() gWait {
		for {
			if s, ok := l.look((*gHandle)(h.g), h.id); ok {
				return s
			}
			runtime.Gosched()
		}
	}
	first := wait()
	if again := wait(); again != first {
		t.Fatalf("two looks at one wait differ: %+v, %+v", first, again)
	}
	for k := 1; k <= 300; k++ {
		tick <- struct{}{}
		// A preemption between two waits adds one more: never less. The
		// runtime stores the waiting status before it adds to the count
		// (V5), so a look may come in between, with the thread that is
		// about to add descheduled: the count must move within a second.
		s := wait()
		for deadline := time.Now().Add(time.Second); s.seq == first.seq && time.Now().Before(deadline); {
			runtime.Gosched()
			s = wait()
		}
		if s.seq == first.seq {
			t.Fatalf("a second after %d more waits the count is unchanged (%d)", k, s.seq)
		}
		first = s
	}
}

type parked2 struct {
	g  unsafe.Pointer
	id int64
}

// BenchmarkLook is one V4 look at a parked goroutine: the cost of the
// watch per holder and tick.
func BenchmarkLook(b *testing.B) {
	l := gLook()
	if !l.ok {
		b.Skip("no layout")
	}
	ch := make(chan int)
	got := make(chan parked2)
	go func() { got <- parked2{unsafe.Pointer(getg()), goid()}; <-ch }()
	defer close(ch)
	h := <-got
	for range b.N {
		l.look((*gHandle)(h.g), h.id)
	}
}

// BenchmarkStallTick is one tick of the monitor on a pool of two workers
// whose holders run (CPU-bound tasks) with work queued behind them: what
// the watch costs a busy pool every millisecond (stall.md, Costs).
func BenchmarkStallTick(b *testing.B) {
	p := New(Config{Workers: 2, DequeCapacity: 64, Name: "fj", StallThreshold: -1})
	p.stall.threshold = 50 * time.Millisecond
	stop := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(2)
	for range 2 {
		done.Add(1)
		go func() {
			defer done.Done()
			Do[Worker](p, nil, func(*Worker) {
				started.Done()
				for x := 0; ; x++ {
					if x%1024 == 0 {
						select {
						case <-stop:
							return
						default:
						}
					}
				}
			})
		}()
	}
	started.Wait()
	done.Add(1)
	go func() { defer done.Done(); Do[Worker](p, nil, func(*Worker) {}) }() // queued behind them
	for p.inj.len() == 0 {
		runtime.Gosched()
	}
	seen := make([]stallSeen, len(p.workers))
	var rep *pendingReport
	now := time.Now()
	b.ResetTimer()
	for range b.N {
		if armed, _ := p.stallTick(seen, &rep, now); !armed {
			b.Fatal("the tick found nothing queued")
		}
	}
	b.StopTimer()
	close(stop)
	done.Wait()
	p.Close()
}
