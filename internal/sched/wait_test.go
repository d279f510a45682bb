package sched_test

import (
	"github.com/forkjoin/fj/forkjoin"
	"runtime"
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

// waitAll starts n goroutines that each block in p.wait(e) and, once it
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
			sched.Wait(sched.From[sched.Pool](p), e)
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
		sched.Submit(sched.From[sched.Pool](p), func(*pool.Worker) { l.Set() })
		if n := finish(); n != 0 {
			t.Fatalf("round %d: %d of 8 Wait calls returned before the latch was set", round, n)
		}
	}

	// Waiting on a latch that is already set returns at once.
	var l sched.Latch
	l.Set()
	sched.Wait(sched.From[sched.Pool](p), &l)
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
				forkjoin.Fork(w, func(*pool.Worker) int { log("set"); l.Set(); return 0 })
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
			sched.Submit(sched.From[sched.Pool](p), func(*pool.Worker) { ran.Add(1); c.Done() })
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
					forkjoin.Fork(w, func(*pool.Worker) int { res[i] += i; c.Done(); return 0 })
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

// Deadlock freedom (3): every worker waits, helping, for a latch that only a
// task in the injector sets. A barrier puts one waiter on each worker (a
// worker spinning in it takes no other task), and the setter is submitted
// only once every worker has (most likely) gone to sleep inside its WaitFor.
func TestAllWorkersWaitForInjectedTask(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(50, 10); round++ {
			var l sched.Latch
			var arrived atomic.Int64
			var entered, finished sched.Counter
			entered.Add(int64(workers))
			finished.Add(int64(workers))
			var onWorker = make([]atomic.Int64, workers)
			for i := 0; i < workers; i++ {
				sched.Submit(sched.From[sched.Pool](p), func(w *pool.Worker) {
					onWorker[w.ID()].Add(1)
					arrived.Add(1)
					for arrived.Load() < int64(workers) {
						runtime.Gosched()
					}
					entered.Done()
					schedtest.W(w).WaitFor(&l)
					finished.Done()
				})
			}
			sched.Wait(sched.From[sched.Pool](p), &entered)
			for i := range onWorker {
				if n := onWorker[i].Load(); n != 1 {
					t.Fatalf("workers=%d: worker %d runs %d waiters, want 1", workers, i, n)
				}
			}
			// Wait until every worker looks parked: it has published more
			// sleeps than wake-ups. A worker parked in its WaitFor always
			// does, so this ends; it may also accept a worker whose last
			// published sleep is from before it took its waiter (a wake-up
			// is published only later), and then that worker is still
			// searching when the setter arrives, which is also a case to
			// get right.
			for asleep := false; !asleep; {
				runtime.Gosched()
				asleep = true
				for _, ws := range p.Stats().Workers {
					asleep = asleep && ws.Sleeps > ws.Wakeups
				}
			}
			if l.IsSet() {
				t.Fatal("latch set before its setter was submitted")
			}
			sched.Submit(sched.From[sched.Pool](p), func(*pool.Worker) { l.Set() })
			sched.Wait(sched.From[sched.Pool](p), &finished)
		}
		p.Close()
	}
}

// Close lets running and queued work finish: tasks submitted before Close,
// running tasks that keep forking after Close began, and outside Run calls
// still blocked in their wait.
func TestCloseFinishesQueuedWork(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		const runners = 8
		nSubmit := small(200, 40)
		n := small(15, 10)
		want := fibSeq(n)

		var release sched.Latch // set once Close has begun
		var started sched.Counter
		var ran, bad atomic.Int64
		started.Add(runners)

		// Outside goroutines in Run: each task signals it started, waits
		// (helping) until Close has begun, then forks a tree of work.
		var wg sync.WaitGroup
		runPanics := make([]any, runners)
		for i := 0; i < runners; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runPanics[i] = catch(func() {
					p.Run(func(w *pool.Worker) {
						started.Done()
						schedtest.W(w).WaitFor(&release)
						if fibJoin(w, n) != want {
							bad.Add(1)
						}
						ran.Add(1)
					})
				})
			}()
		}
		sched.Wait(sched.From[sched.Pool](p), &started) // every Run has been submitted and started

		// Queued tasks: half wait for the release too.
		for i := 0; i < nSubmit; i++ {
			sched.Submit(sched.From[sched.Pool](p), func(w *pool.Worker) {
				if i%2 == 0 {
					schedtest.W(w).WaitFor(&release)
				}
				if fibJoin(w, n) != want {
					bad.Add(1)
				}
				ran.Add(1)
			})
		}

		closed := make(chan struct{})
		go func() {
			defer close(closed)
			p.Close()
		}()
		for !p.Closed() {
			runtime.Gosched()
		}
		release.Set()
		<-closed

		// Nothing can run after Close has returned, so this counts what
		// ran before it.
		if got, want := ran.Load(), int64(runners+nSubmit); got != want {
			t.Errorf("workers=%d: Close returned after %d of %d tasks had finished", workers, got, want)
		}
		if b := bad.Load(); b != 0 {
			t.Errorf("workers=%d: %d tasks computed a wrong fib(%d)", workers, b, n)
		}
		wg.Wait()
		for i, r := range runPanics {
			if r != nil {
				t.Errorf("workers=%d: Run %d panicked: %v", workers, i, r)
			}
		}
		if got := p.Stats().Submitted; got != uint64(runners+nSubmit) {
			t.Errorf("workers=%d: Stats().Submitted = %d, want %d", workers, got, runners+nSubmit)
		}
	}
}
