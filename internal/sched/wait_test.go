package sched_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
)

func TestLatchSetIsSet(t *testing.T) {
	var l sched.Latch
	if l.IsSet() {
		t.Fatal("zero Latch is set")
	}
	l.Set()
	if !l.IsSet() {
		t.Fatal("Latch not set after Set")
	}
	l.Set() // a second Set has no effect
	if !l.IsSet() {
		t.Fatal("Latch not set after a second Set")
	}
	l.Reset()
	if l.IsSet() {
		t.Fatal("Latch still set after Reset")
	}
	l.Set()
	if !l.IsSet() {
		t.Fatal("Latch not set after Reset and Set")
	}
}

// waitAll starts n goroutines that each block in p.Wait(e) and, once it
// returns, record whether e was set. It returns a function that waits for
// all of them and reports how many saw e unset when Wait returned.
func waitAll(p *pool.Pool, e sched.Event, n int) (started *sync.WaitGroup, finish func() int) {
	var wg, st sync.WaitGroup
	var early atomic.Int64
	st.Add(n)
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
			st.Done()
			schedtest.P(p).Wait(e)
			if !e.IsSet() {
				early.Add(1)
			}
		}()
	}
	return &st, func() int { wg.Wait(); return int(early.Load()) }
}

func TestLatchWakesWaiters(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	for round := 0; round < small(50, 10); round++ {
		var l sched.Latch
		started, finish := waitAll(p, &l, 8)
		started.Wait()
		// Set the latch from a task, with outside waiters (probably) parked.
		schedtest.P(p).Submit(schedtest.NewTask(func(*pool.Worker) { l.Set() }))
		if n := finish(); n != 0 {
			t.Fatalf("round %d: %d of 8 Wait calls returned before the latch was set", round, n)
		}
	}

	// Waiting on a latch that is already set returns at once.
	var l sched.Latch
	l.Set()
	schedtest.P(p).Wait(&l)
}

// A task that waits for a latch with WaitFor is woken when another task sets
// it, and a waiting worker runs the setter itself if it has to (1 worker).
func TestLatchWaitForInTask(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(200, 20); round++ {
			var l sched.Latch
			var order []string
			var mu sync.Mutex
			log := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
			p.Run(func(w *pool.Worker) {
				schedtest.W(w).Fork(schedtest.NewTask(func(*pool.Worker) { log("set"); l.Set() }))
				schedtest.W(w).WaitFor(&l)
				log("woken")
			})
			if len(order) != 2 || order[0] != "set" || order[1] != "woken" {
				t.Fatalf("workers=%d round %d: events %q, want [set woken]", workers, round, order)
			}
		}
		p.Close()
	}
}

func TestCounter(t *testing.T) {
	var c sched.Counter
	if !c.IsSet() || c.Count() != 0 {
		t.Fatalf("zero Counter: IsSet=%v Count=%d, want true 0", c.IsSet(), c.Count())
	}
	c.Add(3)
	if c.IsSet() || c.Count() != 3 {
		t.Fatalf("after Add(3): IsSet=%v Count=%d, want false 3", c.IsSet(), c.Count())
	}
	c.Done()
	c.Add(-1)
	if c.IsSet() || c.Count() != 1 {
		t.Fatalf("after two decrements: IsSet=%v Count=%d, want false 1", c.IsSet(), c.Count())
	}
	c.Done()
	if !c.IsSet() || c.Count() != 0 {
		t.Fatalf("at zero: IsSet=%v Count=%d, want true 0", c.IsSet(), c.Count())
	}
	// Reuse after zero.
	c.Add(2)
	if c.IsSet() {
		t.Fatal("Counter reused with Add(2) reports set")
	}
	c.Add(-2)
	if !c.IsSet() {
		t.Fatal("reused Counter not set at zero")
	}
}

func TestCounterBelowZeroPanics(t *testing.T) {
	var c sched.Counter
	r := catch(func() { c.Done() })
	if msg := panicMessage(r); !strings.Contains(msg, "below zero") {
		t.Fatalf("Done on a zero Counter: panic %#v, want a message about going below zero", r)
	}
	var d sched.Counter
	d.Add(1)
	r = catch(func() { d.Add(-2) })
	if msg := panicMessage(r); !strings.Contains(msg, "below zero") {
		t.Fatalf("Add(-2) on a Counter at 1: panic %#v, want a message about going below zero", r)
	}
}

// Outside goroutines waiting on a Counter are woken when tasks bring it to
// zero, and the same Counter works again after it has reached zero.
func TestCounterWakesWaitersAndReuse(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	var c sched.Counter
	for round := 0; round < small(50, 10); round++ {
		const tasks = 16
		c.Add(tasks)
		var ran atomic.Int64
		started, finish := waitAll(p, &c, 4)
		started.Wait()
		for i := 0; i < tasks; i++ {
			schedtest.P(p).Submit(schedtest.NewTask(func(*pool.Worker) { ran.Add(1); c.Done() }))
		}
		if n := finish(); n != 0 {
			t.Fatalf("round %d: %d of 4 Wait calls returned before the count reached zero", round, n)
		}
		// Every Done came after its ran.Add, and the waiters saw zero.
		if got := ran.Load(); got != tasks {
			t.Fatalf("round %d: Wait returned after %d of %d tasks", round, got, tasks)
		}
		if !c.IsSet() {
			t.Fatalf("round %d: Counter not at zero after all tasks: %d", round, c.Count())
		}
	}
}

// A task waits with WaitFor for a Counter of tasks it spawned; on one worker
// it must run them itself.
func TestCounterWaitForInTask(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range []int{1, 3} {
		p := pool.New(pool.WithWorkers(workers))
		var got []int
		p.Run(func(w *pool.Worker) {
			var c sched.Counter
			res := make([]int, 100)
			for round := 0; round < 3; round++ { // reuse the Counter
				c.Add(int64(len(res)))
				for i := range res {
					schedtest.W(w).Fork(schedtest.NewTask(func(*pool.Worker) { res[i] += i; c.Done() }))
				}
				schedtest.W(w).WaitFor(&c)
			}
			got = res
		})
		p.Close()
		if len(got) != 100 {
			t.Fatalf("workers=%d: task did not finish: got %d results", workers, len(got))
		}
		for i, v := range got {
			if v != 3*i {
				t.Fatalf("workers=%d: res[%d] = %d, want %d", workers, i, v, 3*i)
			}
		}
	}
}
