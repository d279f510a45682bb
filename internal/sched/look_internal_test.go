package sched

import (
	"runtime"
	"sync"
	"testing"
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
	for i, want := range []string{"chan receive", "sync.Mutex.Lock"} {
		park := []func(){func() { <-ch }, func() { mu.Lock(); mu.Unlock() }}[i]
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
