package sched

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// L1 finds the layout where the fast goroutine id works, and L3 tells a
// running goroutine from parked ones, naming their waits, and no longer
// answers for a goroutine that has exited.
func TestLookLayout(t *testing.T) {
	l := gLook()
	if !l.ok {
		if goidFast {
			t.Fatal("no layout found, though the fast goroutine id works")
		}
		t.Skip("no fast goroutine id here: the monitor falls back to runtime.Stack")
	}
	if l.reasons == nil {
		t.Error("no wait reasons found: is waitReasons126 this release's list?")
	}
	if s, ok := l.look((*gHandle)(getg()), goid()); !ok || s.blocked {
		t.Errorf("the running goroutine looks %+v (ok %v)", s, ok)
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
	for i, want := range []string{"chan receive", "sync.Mutex.Lock"} {
		park := []func(){func() { <-ch }, func() { mu.Lock(); passed++; mu.Unlock() }}[i]
		exited := make(chan struct{})
		go func() { defer close(exited); got <- parked{getg(), goid()}; park() }()
		h := <-got
		for {
			s, ok := l.look((*gHandle)(h.g), h.id)
			if !ok {
				t.Fatalf("%s: the goroutine's id no longer matches", want)
			}
			if s.blocked {
				if s.reason != want && l.reasons != nil {
					t.Errorf("parked in %s, the look says %q", want, s.reason)
				}
				break
			}
			runtime.Gosched() // it runs until it parks
		}
		if want == "chan receive" {
			close(ch)
		} else {
			mu.Unlock()
		}
		<-exited
		if _, ok := l.look((*gHandle)(h.g), h.id); ok {
			// The g may be reused by a goroutine of another id, or
			// be dead: either way not this one.
			if id := int64(gWord64(h.g, l.goidOff)); id == h.id && gWord32(h.g, l.statusOff)&^gScanBit == gWaiting {
				t.Errorf("%s: an exited goroutine still looks blocked", want)
			}
		}
	}
}

// BenchmarkLook is one L3 look at a parked goroutine: the cost of the
// watch per holder and tick.
func BenchmarkLook(b *testing.B) {
	l := gLook()
	if !l.ok {
		b.Skip("no layout")
	}
	type parked struct {
		g  unsafe.Pointer
		id int64
	}
	ch := make(chan int)
	got := make(chan parked)
	go func() { got <- parked{getg(), goid()}; <-ch }()
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
	p.slots.init(p.workers, 2*sparesPerWorker)
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
	slots := p.Slots()
	v := &stallView{seen: make([]stallSeen, slots), standIn: make([]int, slots)}
	for i := range v.standIn {
		v.standIn[i] = -1
	}
	now := time.Now()
	b.ResetTimer()
	for range b.N {
		if armed, _ := p.stallTick(v, now); !armed {
			b.Fatal("the tick found nothing queued")
		}
	}
	b.StopTimer()
	close(stop)
	done.Wait()
	p.Close()
}
