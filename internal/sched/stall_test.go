package sched_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/internal/wsdeque"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

//fjvet:file-ignore blocking,lock-across-join the tests of the stall watch block without sections on purpose

// Stalls (stall.md): tasks that block without a section, every worker
// held so while work is queued. In every build, the pool reports the
// holders once and runs the queued work on spares; long CPU-bound tasks
// are not stalls; an idle pool runs no monitor. The thresholds here are
// short, so that the tests do not wait long; nothing asserts how soon a
// stall is found, only that it is, once, and that the work completes.

// stallThreshold is the tests' threshold: short, so that a test that
// waits for a stall's recovery waits little.
const stallThreshold = 10 * time.Millisecond

// reports collects the reports a pool's stall handler receives.
type reports struct {
	mu sync.Mutex
	rs []pool.StallReport
}

func (r *reports) handler(rep pool.StallReport) {
	r.mu.Lock()
	r.rs = append(r.rs, rep)
	r.mu.Unlock()
}

func (r *reports) get() []pool.StallReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]pool.StallReport(nil), r.rs...)
}

func stallPool(workers int, r *reports, opts ...pool.Option) *pool.Pool {
	// The tests count spares and stalls: no stand-ins of debug builds.
	return pool.New(append([]pool.Option{pool.WithWorkers(workers), pool.WithStallThreshold(stallThreshold),
		pool.WithStallHandler(r.handler)}, opts...)...)
}

// stallReceive is a blocking call without a section, in a frame of its
// own, so that the report's stacks can be checked for it.
//
//go:noinline
func stallReceive(ch <-chan int) int { return <-ch }

// checkReport checks the one report a stall produced: its first task is
// one of the holders in want, blocked in stallReceive's receive, and its
// text (String) is what a user reads: at most 40 lines, the program's
// frame, fj's frames elided, the fix.
func checkReport(t *testing.T, what string, rs []pool.StallReport, want []int64) {
	t.Helper()
	if len(rs) != 1 {
		t.Fatalf("%s: the handler was called %d times, want once", what, len(rs))
	}
	r := rs[0]
	if r.Pool != "fj" || r.Threshold != stallThreshold || r.Spares < 1 || len(r.Tasks) == 0 || r.SpareLimit < 1 {
		t.Fatalf("%s: report %+v", what, r)
	}
	task := r.Tasks[0]
	if !slices.Contains(want, task.Goroutine) || task.State != "chan receive" || !strings.Contains(task.Stack, "stallReceive") ||
		!strings.HasPrefix(task.Stack, fmt.Sprintf("goroutine %d [chan receive", task.Goroutine)) || task.Blocked <= 0 {
		t.Errorf("%s: the report's first task: worker %d, goroutine %d (want one of %v), state %q, blocked %v, stack:\n%s",
			what, task.Worker, task.Goroutine, want, task.State, task.Blocked, task.Stack)
	}
	text := r.String()
	for _, s := range []string{"pool.Blocking", "stallReceive", "chan receive", "of fj's own",
		fmt.Sprintf("another goroutine %d time(s)", r.Spares), "Fix: wrap the blocking call in github.com/forkjoin/fj/internal/sched_test.stallReceive"} {
		if !strings.Contains(text, s) {
			t.Errorf("%s: the report's text lacks %q:\n%s", what, s, text)
		}
	}
	if n := strings.Count(strings.TrimSpace(text), "\n") + 1; n > 40 {
		t.Errorf("%s: the report's text has %d lines, more than 40:\n%s", what, n, text)
	}
}

// Every worker runs a task that waits on a channel, without a section;
// the task that fills the channels is queued behind them, submitted from
// outside. The pool reports the stall once, naming each holder's
// goroutine, and a spare runs the queued task: everything completes.
func TestStallQueuedTaskFills(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		var r reports
		p := stallPool(workers, &r)
		ch := make(chan int)
		holders := make([]int64, workers)
		var started, done sync.WaitGroup
		started.Add(workers)
		done.Add(workers)
		for range workers {
			go func() {
				defer done.Done()
				p.Run(func(w *pool.Worker) {
					holders[w.ID()] = sched.Goid()
					started.Done()
					stallReceive(ch)
				})
			}()
		}
		started.Wait()
		forkjoin.Invoke(p, func(*pool.Worker) int { // queued: every worker is held
			for range workers {
				ch <- 1
			}
			return 0
		})
		done.Wait()
		p.Close()
		checkReport(t, fmt.Sprintf("%d workers", workers), r.get(), holders)
		s := p.Stats()
		if s.Stalls < 1 || s.SparesStarted < 1 || s.SparesStarted > uint64(workers)*s.Stalls || s.Spares != 0 {
			t.Errorf("%d workers: Stats: %d stalls, %d spares started, %d live after Close", workers, s.Stalls, s.SparesStarted, s.Spares)
		}
	}
}

// A task forks X, which fills a channel, and waits on the channel
// without a section and without joining X. X is its worker's oldest fork,
// which the publication policy exposes (job.go, E1), and its publication
// arms the monitor (stall.md, W2); a spare steals it. With two workers,
// the other one is held by a task that waits for the first to finish.
func TestStallOwnForkFills(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		var r reports
		p := stallPool(workers, &r)
		holders := make([]int64, workers)
		gate := make(chan int)
		var started sync.WaitGroup
		started.Add(workers - 1)
		other := make(chan struct{})
		if workers == 2 {
			go func() {
				defer close(other)
				p.Run(func(w *pool.Worker) {
					holders[w.ID()] = sched.Goid()
					started.Done()
					stallReceive(gate)
				})
			}()
		} else {
			close(other)
		}
		started.Wait()
		published, taken := false, false
		n := forkjoin.Invoke(p, func(w *pool.Worker) int {
			holders[w.ID()] = sched.Goid()
			ch := make(chan int, 1)
			x := forkjoin.Fork(w, func(*pool.Worker) int { ch <- 1; return 1 })
			// Published, or already taken: if this goroutine is
			// descheduled for a millisecond or two after the fork, a
			// spare of the blocked worker may have stolen it. Whether
			// that steal took it published or private (M2: then E1
			// failed) the pool's private steals say, once it closed.
			sw := schedtest.W(w)
			published = sw.Published() > 0
			taken = !published && sw.Queued() == 0
			if !published && !taken {
				x.Join(w) // private: nobody but this task can run it
				return -1
			}
			stallReceive(ch)
			return x.Join(w)
		})
		if workers == 2 {
			gate <- 1
		}
		<-other
		p.Close()
		// Taken by a private steal (M2), it had stayed private.
		if !published && (!taken || p.Stats().Total.PrivateSteals != 0) {
			t.Fatalf("%d workers: a fork made while the deque exposed nothing stayed private (job.go, E1)", workers)
		}
		if n != 1 {
			t.Errorf("%d workers: the task returned %d", workers, n)
		}
		checkReport(t, fmt.Sprintf("%d workers", workers), r.get(), holders)
	}
}

// A fan-out of tasks that sleep without sections: they complete (the
// sleeps end anyway), and a stall, if the pool detected one, was
// reported once and run on at most one spare per worker. How much
// faster spares make it is bench_test.go's.
func TestStallSleepFanOut(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(2, &r)
	var ran atomic.Int32
	taskblock.Define(p, func(b *taskblock.Block) {
		for range 16 {
			b.Run(func(*pool.Worker) {
				time.Sleep(5 * stallThreshold)
				ran.Add(1)
			})
		}
	})
	s := p.Stats()
	p.Close()
	if ran.Load() != 16 || len(r.get()) > 1 || s.Spares > 2 {
		t.Errorf("%d of 16 tasks ran; %d reports; %d spares live at the end", ran.Load(), len(r.get()), s.Spares)
	}
}

// Long CPU-bound tasks on every worker, with work queued behind them:
// the monitor looks at them every millisecond (W4) and finds them
// running, never blocked: no report, no spare, and no goroutine dump.
func TestStallNotOnLongCPUTasks(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("the fallback look (FJ_GOID=stack, or no layout found) sees only whole-pool stalls")
	}
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		var r reports
		p := stallPool(workers, &r)
		sp := sched.From[sched.Pool](p)
		var started sync.WaitGroup
		started.Add(workers)
		stop := make(chan struct{})
		var spinners sync.WaitGroup
		for range workers {
			spinners.Add(1)
			go func() {
				defer spinners.Done()
				p.Run(func(*pool.Worker) {
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
		queued := make(chan struct{})
		go func() { p.Run(func(*pool.Worker) {}); close(queued) }()
		// Twenty ticks of the monitor, each of which looked at every
		// spinner (the first tick comes with the monitor's start).
		for _, _, ticks, _ := sched.StallWatch(sp); ticks < 20; _, _, ticks, _ = sched.StallWatch(sp) {
			runtime.Gosched()
		}
		close(stop)
		spinners.Wait()
		<-queued
		_, _, _, dumps := sched.StallWatch(sp)
		s := p.Stats()
		p.Close()
		if n := len(r.get()); n != 0 || s.Stalls != 0 || s.SparesStarted != 0 || dumps != 0 {
			t.Errorf("%d workers: long CPU-bound tasks: %d reports, %d stalls, %d spares started, %d dumps",
				workers, n, s.Stalls, s.SparesStarted, dumps)
		}
	}
}

// An idle pool runs no monitor: a new pool never arms one; a pool whose
// every worker blocks with nothing queued disarms at its first tick; a
// pool that ran work and went idle disarms too. Disarmed means no
// goroutine and no timer (W3); the test reads the state, then checks that
// no tick happened since.
func TestStallNoTimerWhenIdle(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	disarmed := func(p *pool.Pool) (starts, ticks int64) {
		sp := sched.From[sched.Pool](p)
		for {
			armed, starts, ticks, _ := sched.StallWatch(sp)
			if !armed {
				return starts, ticks
			}
			runtime.Gosched()
		}
	}
	var r reports
	p := stallPool(2, &r)
	if armed, starts, ticks, _ := sched.StallWatch(sched.From[sched.Pool](p)); armed || starts != 0 || ticks != 0 {
		t.Errorf("new pool: armed %v, %d monitors started, %d ticks", armed, starts, ticks)
	}
	for range 3 {
		forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 20) })
	}
	_, ticks := disarmed(p)
	p.Close()
	if _, _, after, _ := sched.StallWatch(sched.From[sched.Pool](p)); after != ticks {
		t.Errorf("idle pool: %d ticks after the monitor disarmed", after-ticks)
	}

	p = stallPool(1, &r)
	gate := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(*pool.Worker) { <-gate }) // blocked, nothing queued
	}()
	starts, ticks := disarmed(p)
	if armed, s2, t2, _ := sched.StallWatch(sched.From[sched.Pool](p)); armed || s2 != starts || t2 != ticks {
		t.Errorf("a blocked task with nothing queued: the monitor ran again (armed %v, starts %d->%d, ticks %d->%d)",
			armed, starts, s2, ticks, t2)
	}
	close(gate)
	<-done
	p.Close()
	if n := len(r.get()); n != 0 {
		t.Errorf("%d reports", n)
	}
}

// Spares never touch a blocked worker's deque but to steal from it
// (Y4, Y7): holders block without sections while their workers' deques
// hold published forks, then wake and go on forking and joining (fib)
// while spares run the queued work, which forks too. Every result must be
// right, round after round, under the race detector too.
func TestStallSpareStress(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rounds := small(20, 5)
	for _, workers := range []int{1, 2} {
		var r reports
		p := stallPool(workers, &r)
		for round := range rounds {
			ch := make(chan int)
			var wg sync.WaitGroup
			results := make([]int, workers+4)
			for i := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = forkjoin.Invoke(p, func(w *pool.Worker) int {
						a := forkjoin.Fork(w, func(w *pool.Worker) int { return fib(w, 15) })
						stallReceive(ch) // a spare may steal a meanwhile
						return fib(w, 16) + a.Join(w)
					})
				}()
			}
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[workers+i] = forkjoin.Invoke(p, func(w *pool.Worker) int {
						if i == 0 {
							for range workers {
								ch <- 1
							}
						}
						return fib(w, 17)
					})
				}()
			}
			wg.Wait()
			for i, got := range results {
				want := 987 + 610
				if i >= workers {
					want = 1597
				}
				if got != want {
					t.Fatalf("%d workers, round %d: result %d = %d, want %d", workers, round, i, got, want)
				}
			}
		}
		p.Close()
		if len(r.get()) > 1 {
			t.Errorf("%d workers: %d reports", workers, len(r.get()))
		}
	}
}

// A per-worker value across a hand-over: the task handed the worker
// gets the worker's value (it runs on that worker), and the blocked task,
// which Gets the value again once its wait ends, as PerWorker's doc asks
// (not across a block), first takes its worker back (stall.md, Y5), so
// the two never use the value at once: one value, both updates.
func TestStallPerWorkerAcrossHandOver(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(1, &r)
	defer p.Close()
	pw := parallel.NewPerWorker(p, func() int { return 0 })
	ch := make(chan int)
	var mine, other *int
	var otherID int
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(w *pool.Worker) {
			*pw.Get(w) = 1
			close(started)
			stallReceive(ch)
			mine = pw.Get(w) // after the block: its worker back first
			*mine++
		})
	}()
	<-started
	p.Run(func(w *pool.Worker) { // queued: run once the worker is handed over
		other, otherID = pw.Get(w), w.ID()
		*other += 10
		ch <- 1
	})
	<-done
	if mine != other || *mine != 12 || otherID != 0 {
		t.Errorf("the task's value %d at %p, the other task's %d at %p (ID %d); want one value, 12", *mine, mine, *other, other, otherID)
	}
	n := 0
	for range pw.All() {
		n++
	}
	if n != 1 || p.Stats().HandOvers == 0 {
		t.Errorf("PerWorker.All yields %d values, want 1; %d hand-overs", n, p.Stats().HandOvers)
	}
}

// Close while tasks are stalled: it waits for them, and the spares run
// the queued task they wait for, so Close returns.
func TestStallClose(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(2, &r)
	ch := make(chan int)
	var started sync.WaitGroup
	started.Add(2)
	for range 2 {
		go p.Run(func(*pool.Worker) { started.Done(); stallReceive(ch) })
	}
	started.Wait()
	filled := make(chan struct{})
	go func() {
		defer close(filled)
		forkjoin.Invoke(p, func(*pool.Worker) int { ch <- 1; ch <- 1; return 0 })
	}()
	for p.Stats().Submitted < 3 { // the filler is queued: Close may begin
		runtime.Gosched()
	}
	p.Close()
	<-filled
	if s := p.Stats(); s.Spares != 0 || s.SparesStarted < 1 {
		t.Errorf("after Close: %d spares live, %d started", s.Spares, s.SparesStarted)
	}
}

// Without a handler, the report goes to standard error. In a child
// process, so that the test can read it; this is the text a user sees.
func TestStallReportToStderr(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	if os.Getenv(stallChildEnv) != "" {
		stallChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStallReportToStderr$", "-test.count=1")
	cmd.Env = append(os.Environ(), stallChildEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	report := stderr.String()
	if n := strings.Count(report, "waited without pool.Blocking"); n != 1 {
		t.Fatalf("the child printed %d reports, want one; stderr:\n%s", n, report)
	}
	for _, want := range []string{
		`fj: a task of pool "fj" waited without pool.Blocking while work waited for its worker`,
		"on worker 0: chan receive for ",
		"stallReceive",
		"of fj's own",
		"another goroutine 1 time(s)",
		"Fix: wrap the blocking call in github.com/forkjoin/fj/internal/sched_test.stallReceive in pool.Blocking",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if n := strings.Count(strings.TrimSpace(report), "\n") + 1; n > 40 {
		t.Errorf("the report has %d lines, more than 40:\n%s", n, report)
	}
	// The program's frame comes first, before any of fj's.
	if i, j := strings.Index(report, "stallReceive"), strings.Index(report, "internal/sched."); j >= 0 && j < i {
		t.Errorf("an fj frame comes before the program's:\n%s", report)
	}
	t.Logf("the report:\n%s", report)
}

const stallChildEnv = "FJ_STALL_TEST_CHILD"

// stallChild is the forgotten section of issue 15's producer and
// consumer, on one worker, in TestStallReportToStderr's child: the
// consumer blocks on its receive without a section, holding the only
// worker, and the producer is queued behind it (stallConsumerFirst).
func stallChild() {
	p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(stallThreshold))
	stallConsumerFirst(p)
	p.Close()
}

// stallConsumerFirst runs, on p of one worker, a consumer that blocks on
// its receive without a section, holding the worker, and then the
// producer it waits for, queued behind it (submitted from outside, so that
// it is queued whatever the publication policy does with forks); it
// returns when both have: through a spare, since the consumer holds the
// only worker until the producer runs.
func stallConsumerFirst(p *pool.Pool) {
	ch := make(chan int)
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(*pool.Worker) { close(started); stallReceive(ch) })
	}()
	<-started
	p.Run(func(*pool.Worker) { ch <- 1 })
	<-done
}

// Close from the stall handler would wait for the handler: it panics,
// naming the mistake, and the pool goes on.
func TestStallCloseFromHandler(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var p *pool.Pool
	var msg string
	p = pool.New(pool.WithWorkers(1), pool.WithStallThreshold(stallThreshold),
		pool.WithStallHandler(func(pool.StallReport) { msg = fjtest.PanicMessage(fjtest.Catch(p.Close)) }))
	stallConsumerFirst(p)
	p.Close()
	if !strings.Contains(msg, "Close called from the pool's stall handler") {
		t.Errorf("Close from the handler panicked with %q", msg)
	}
}

// WithStallThreshold(0 or less) turns the monitor off: a pool whose only
// worker is blocked with work queued behind it never arms one (and would
// hang on that work, as the option's doc says, had the test not released
// the task).
func TestStallOff(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, d := range []time.Duration{0, -time.Second} {
		p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(d))
		gate := make(chan struct{})
		started, done, queued := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			p.Run(func(*pool.Worker) { close(started); <-gate })
		}()
		<-started
		go func() { defer close(queued); p.Run(func(*pool.Worker) {}) }()
		for p.Stats().Submitted < 2 { // queued behind the blocked task
			runtime.Gosched()
		}
		armed, starts, _, _ := sched.StallWatch(sched.From[sched.Pool](p))
		close(gate)
		<-done
		<-queued
		p.Close()
		if armed || starts != 0 {
			t.Errorf("WithStallThreshold(%v): the monitor armed (%v) or started (%d times)", d, armed, starts)
		}
	}
}

// spin runs a CPU-bound task until stop is closed: a task that runs,
// never blocked, for as long as the test needs (the issue's "CPU-bound
// task of 3 s", without a clock).
func spinUntil(stop <-chan struct{}) {
	for x := 0; ; x++ {
		if x%1024 == 0 {
			select {
			case <-stop:
				return
			default:
			}
		}
	}
}

// The partial stall of issue 31: one worker runs a long CPU-bound task;
// on the other, a task receives from a channel without a section while
// the sender is forked behind it. The other worker never comes free, so
// only the blocked worker's own stand-in can run the sender: it does,
// and the block is reported (W4, Y4, W5).
func TestStallPartial(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("the fallback look (FJ_GOID=stack, or no layout found) sees only whole-pool stalls")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(2, &r)
	stop, spinning, spun := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var spinner int64
	go func() {
		defer close(spun)
		p.Run(func(*pool.Worker) { spinner = sched.Goid(); close(spinning); spinUntil(stop) })
	}()
	<-spinning
	var holder int64
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		holder = sched.Goid()
		ch := make(chan int)
		x := forkjoin.Fork(w, func(*pool.Worker) int { ch <- 1; return 1 })
		return stallReceive(ch) + x.Join(w)
	})
	close(stop)
	<-spun
	s := p.Stats()
	p.Close()
	if n != 2 {
		t.Errorf("the task returned %d", n)
	}
	checkReport(t, "partial stall", r.get(), []int64{holder})
	if rs := r.get(); len(rs) == 1 {
		for _, task := range rs[0].Tasks {
			if task.Goroutine == spinner {
				t.Errorf("the CPU-bound task was reported: %+v", task)
			}
		}
	}
	if s.Stalls < 1 || s.SparesStarted < 1 {
		t.Errorf("Stats: %d stalls, %d spares started", s.Stalls, s.SparesStarted)
	}
}

// A task handed over gets its worker back at its next call of fj's once
// its wait has ended (stall.md, Y5): it forks and joins on it, as the
// worker's holder again, and once it has returned no task is handed over
// (Stats.Spares), while tasks queued from outside all ran.
func TestStallTaskGetsItsWorkerBack(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("no look on this platform (stall.md, Limits)")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(1, &r)
	const queued = 2000
	var ran atomic.Int64
	ch := make(chan int)
	started, blockDone := make(chan struct{}), make(chan struct{})
	var id, sum int
	go func() {
		defer close(blockDone)
		p.Run(func(w *pool.Worker) {
			close(started)
			stallReceive(ch)
			a, b := forkjoin.Join(w, func(w *pool.Worker) int { id = w.ID(); return 1 }, func(*pool.Worker) int { return 2 })
			sum = a + b
		})
	}()
	<-started
	var wg sync.WaitGroup
	wg.Add(queued)
	go p.Run(func(*pool.Worker) { ch <- 1 }) // run once the worker is handed over
	for range queued {
		go func() { defer wg.Done(); p.Run(func(*pool.Worker) { ran.Add(1) }) }()
	}
	wg.Wait()
	<-blockDone
	s := p.Stats()
	p.Close()
	if s.HandOvers < 1 || s.Spares != 0 || sum != 3 || id != 0 || ran.Load() != queued {
		t.Errorf("%d hand-overs, %d tasks still handed over, the join returned %d on worker %d, %d of %d queued tasks ran",
			s.HandOvers, s.Spares, sum, id, ran.Load(), queued)
	}
}

// Compensation follows the blocked tasks (Y4): tasks that all wait for
// each other without sections (a barrier of 24 on 2 workers, as in
// hostage_test.go but without pool.Blocking) complete, each spare that
// blocks getting a spare of its own.
func TestStallChainOfSpares(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("the fallback look (FJ_GOID=stack, or no layout found) sees only whole-pool stalls")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(2, &r)
	const n = 24
	var arrived atomic.Int32
	all := make(chan struct{})
	taskblock.Define(p, func(b *taskblock.Block) {
		for range n {
			b.Run(func(*pool.Worker) {
				if arrived.Add(1) == n {
					close(all)
				}
				<-all // without a section
			})
		}
	})
	s := p.Stats()
	p.Close()
	// All n blocked at once: each on a holder of its own, the two
	// workers' and n-2 spares'.
	if s.SparesStarted < n-2 || s.Stalls < 1 || len(r.get()) != 1 {
		t.Errorf("%d spares started, %d stalls, %d reports; want at least %d, one and one", s.SparesStarted, s.Stalls, len(r.get()), n-2)
	}
}

// The bound on hand-overs (Y1) is counted and reported: tasks that block
// until the pool has refused a spare at the bound. The report waits for
// a long threshold, so that it comes when the monitor stops (W5), after
// the bound was reached.
func TestStallSpareLimit(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("the fallback look (FJ_GOID=stack, or no layout found) sees only whole-pool stalls")
	}
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// With a long threshold the report comes when the monitor stops; at
	// the tests' 10 ms, the chain of hand-overs is still growing then,
	// and the report waits for it (W5).
	for _, threshold := range []time.Duration{time.Hour, stallThreshold} {
		var r reports
		p := stallPool(1, &r, pool.WithStallThreshold(threshold))
		gate := make(chan struct{})
		go func() {
			for p.Stats().SparesAtLimit == 0 {
				runtime.Gosched()
			}
			close(gate)
		}()
		var wg sync.WaitGroup
		for range 200 { // from outside: published, whatever the workers do
			wg.Add(1)
			go func() { defer wg.Done(); p.Run(func(*pool.Worker) { <-gate }) }()
		}
		wg.Wait()
		s := p.Stats()
		p.Close()
		rs := r.get()
		if s.SparesAtLimit == 0 || len(rs) != 1 || !rs[0].AtLimit || !strings.Contains(rs[0].String(), "limit of 64 blocked tasks per worker") {
			t.Errorf("threshold %v: Stats: %d refused at the limit; %d reports: %+v", threshold, s.SparesAtLimit, len(rs), rs)
		}
		if len(rs) == 1 {
			for _, task := range rs[0].Tasks {
				if task.Stack != "" && !strings.Contains(task.Stack, "TestStallSpareLimit") {
					t.Errorf("threshold %v: a blocked task's stack lacks the program's frame:\n%s", threshold, task.Stack)
				}
			}
		}
	}
}

// The younger private fork of issue 31: a task forks x (which the other
// worker steals), then a (published) and b (private), then waits on a
// channel that b fills, without a section. The other worker finishes x,
// takes a and goes idle; b is private. Thieves take private forks
// (wsdeque.md, D8), so the idle worker runs b at once. Where they cannot,
// nothing reaches b before its forker's next fork or join.
func TestStallPrivateFork(t *testing.T) {
	if !wsdeque.PrivateSteals() {
		t.Skip("no private steals on this platform: a stand-in cannot reach b (stall.md, Limits)")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(2, &r)
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		stolen := make(chan struct{})
		x := forkjoin.Fork(w, func(*pool.Worker) int { close(stolen); return 1 })
		<-stolen // taken by the other worker (a join would take it back)
		a := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
		ch := make(chan int, 1)
		b := forkjoin.Fork(w, func(*pool.Worker) int { ch <- 1; return 1 })
		return stallReceive(ch) + b.Join(w) + a.Join(w) + x.Join(w)
	})
	p.Close()
	if n != 4 {
		t.Errorf("the task returned %d", n)
	}
	// The idle worker takes b itself (wsdeque.md, D8; search.go, M2) as
	// soon as it is idle: the receive waits for b's run, not for the
	// watch, and whether a report comes depends only on how long the
	// machine takes to run b, so none is required.
}

// The mutex across a join of issue 31: a task holding a sync.Mutex parks
// in a join; its worker's next carrier runs a younger fork that calls
// Lock() without a section; the join's other half ends, and the parked
// task is ready, but it resumes only on its worker, whose holder waits
// for the mutex. The monitor hands the worker over the blocked holder's
// head (stall.md, Y1-Y7), to the parked task, or to a carrier that runs
// the other half first, after which the task takes its worker back.
//
// With fjFirst, the younger fork makes fj calls (a fork and its join)
// before it locks: issue 44 found race builds hanging then, every time,
// where plain builds completed. Every build runs both.
func TestStallMutexAcrossJoin(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, fjFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("workers=%d/fjFirst=%v", workers, fjFirst), func(t *testing.T) {
				fjtest.Deadline(t, 60*time.Second)
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				var r reports
				p := stallPool(workers, &r)
				n, st := mutexAcrossJoinAfter(p, fjFirst)
				p.Close()
				if n != 2 || len(r.get()) != 1 || st.HandOvers == 0 {
					t.Errorf("the task returned %d; %d reports, %d hand-overs (want 2, 1, at least 1)", n, len(r.get()), st.HandOvers)
				}
			})
		}
	}
}

// mutexAcrossJoin is the shape: the task holding mu forks other, which
// another worker (on one worker, a spare) takes and keeps busy until the
// younger fork has started; the task parks in other's join; its worker's
// next carrier runs the younger fork, which blocks in Lock without a
// section. It returns the task's result and the pool's Stats just after.
func mutexAcrossJoin(p *pool.Pool) (int, pool.Stats) { return mutexAcrossJoinAfter(p, false) }

// mutexAcrossJoinAfter is mutexAcrossJoin whose younger fork, with
// fjFirst, forks and joins a task of its own before it locks.
func mutexAcrossJoinAfter(p *pool.Pool, fjFirst bool) (int, pool.Stats) {
	var mu sync.Mutex
	shared := 0 // under mu
	stolen, started := make(chan struct{}), make(chan struct{})
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		mu.Lock()
		other := forkjoin.Fork(w, func(*pool.Worker) int {
			close(stolen)
			<-started // waits, without a section, for the younger fork to start: handed over if it holds the worker (stall.md, Y4)
			return 1
		})
		younger := forkjoin.Fork(w, func(w *pool.Worker) int {
			close(started)
			if fjFirst {
				forkjoin.Fork(w, func(*pool.Worker) int { return 0 }).Join(w)
			}
			mu.Lock() // no section: blocks the holder of the task's worker
			shared++
			mu.Unlock()
			return 1
		})
		stallReceive2(stolen)
		v := other.Join(w) // parks: the younger fork runs here, and blocks
		mu.Unlock()
		return v + younger.Join(w)
	})
	return n, p.Stats()
}

// stallReceive2 waits for ch to be closed, without a section.
//
//go:noinline
func stallReceive2(ch <-chan struct{}) { <-ch }

// The same on one worker: the spare that stands in for the blocked holder
// is the only thief, and takes its private fork (search.go, M2).
func TestStallPrivateForkOneWorker(t *testing.T) {
	if !wsdeque.PrivateSteals() || !sched.StallLookExact() {
		t.Skip("needs private steals and the exact look")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := stallPool(1, &r)
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		a := forkjoin.Fork(w, func(*pool.Worker) int { return 1 }) // published: its deque exposed nothing (E1)
		ch := make(chan int, 1)
		b := forkjoin.Fork(w, func(*pool.Worker) int { ch <- 1; return 1 }) // private
		return stallReceive(ch) + b.Join(w) + a.Join(w)
	})
	p.Close()
	if n != 3 {
		t.Errorf("the task returned %d", n)
	}
}

// A thief that takes the one published fork of a worker leaves the
// worker's younger forks private and exposes nothing: they stay private
// while nobody searches, and if the thief's task and the worker's then
// both block without a section, only the monitor can see them, and
// spares must run them (stall.md, W2-W4). The shape: T0 forks x1, x2 and x3 on
// an idle pool (x1 published, waking the other worker; x2 and x3 private
// behind it), waits until the other worker has taken X1, and blocks
// until all three have arrived, which only a hand-over running x2 and x3 lets
// happen. Written while looking for the cause of one hang of
// TestStallChainOfSpares under the race detector (both workers blocked
// with tasks queued and no monitor running); this shape does not hang.
func TestStallAfterStealLeavesPrivateForks(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("the fallback look (FJ_GOID=stack, or no layout found) sees only whole-pool stalls")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for round := 0; round < 20; round++ {
		var r reports
		p := stallPool(2, &r)
		var arrived atomic.Int32
		all := make(chan struct{})
		x := func(*pool.Worker) int {
			if arrived.Add(1) == 3 {
				close(all)
			}
			<-all // without a section
			return 0
		}
		p.Run(func(w *pool.Worker) {
			x1 := forkjoin.Spawn(w, x)
			x2 := forkjoin.Spawn(w, x)
			x3 := forkjoin.Spawn(w, x)
			for arrived.Load() == 0 { // the other worker took x1
			}
			<-all // block without a section, x2 and x3 private here
			x3.Join(w)
			x2.Join(w)
			x1.Join(w)
		})
		p.Close()
	}
}
