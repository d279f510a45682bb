package sched_test

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The stall watchdog (watchdog.go) exists in builds with debug checks:
// -race, which .ci/run uses, or -tags fjdebug.
func needWatchdog(t *testing.T) {
	t.Helper()
	if !sched.DebugChecks {
		t.Skip("the watchdog runs only in builds with -race or the fjdebug tag")
	}
}

// watchdogOf returns the test's view of p's watchdog.
func watchdogOf(t *testing.T, p *pool.Pool) (ticks, looked func() int64, fired <-chan struct{}) {
	t.Helper()
	ticks, looked, fired, ok := sched.Watchdog(sched.From[sched.Pool](p))
	if !ok {
		t.Fatal("the pool has no watchdog")
	}
	return ticks, looked, fired
}

func hasFired(fired <-chan struct{}) bool {
	select {
	case <-fired:
		return true
	default:
		return false
	}
}

const watchdogChildEnv = "FJ_WATCHDOG_TEST_CHILD"

// The producer and consumer of issue 15 without sections, on one worker:
// the producer's send holds the only worker, and the consumer, a private
// fork behind it, never runs. The watchdog reports it, once, on stderr,
// naming the task and the fix. In a child process, so that the report
// goes to a stderr the test can read.
func TestWatchdogReportsStall(t *testing.T) {
	needWatchdog(t)
	fjtest.Deadline(t, 120*time.Second)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), watchdogChildEnv+"=1", "FJ_WATCHDOG=100ms")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	report := stderr.String()
	if n := strings.Count(report, "fj watchdog:"); n != 1 {
		t.Fatalf("the child printed %d reports, want one; stderr:\n%s", n, report)
	}
	for _, want := range []string{
		`every worker of pool "fj" has been inside one task for more than 100ms`,
		"tasks in its queues: 1;",
		"worker 0: goroutine ",
		"[chan send",
		"stallProducer", // the blocked task's own frame
		"wrap the blocking call",
		"pool.Blocking",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if !strings.Contains(stdout.String(), "PASS") {
		t.Errorf("the child did not pass:\n%s", stdout.String())
	}
}

// TestWatchdogChild is the child process of TestWatchdogReportsStall.
func TestWatchdogChild(t *testing.T) {
	if os.Getenv(watchdogChildEnv) == "" {
		t.Skip("run by TestWatchdogReportsStall")
	}
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(1))
	_, _, fired := watchdogOf(t, p)
	ch := make(chan int)
	done := make(chan struct{})
	go func() {
		defer close(done)
		parallel.Do(p, func(*pool.Worker) { stallProducer(ch) }, func(*pool.Worker) { <-ch })
	}()
	<-fired
	// Some more thresholds stalled, in which a second report would
	// appear; then the test plays the consumer's part, and the
	// producer's task ends.
	time.Sleep(500 * time.Millisecond)
	<-ch
	ch <- 2 // for the consumer, which now runs
	<-done
	p.Close()

}

//go:noinline
func stallProducer(ch chan<- int) { ch <- 1 }

// A task that runs for many thresholds on the CPU, with work queued behind
// it, is not a stall: the watchdog finds its worker stuck and work queued
// (W2, W3) over and over, but the goroutine running, and stays silent.
func TestWatchdogSilentOnLongCPUTask(t *testing.T) {
	needWatchdog(t)
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv("FJ_WATCHDOG", "20ms")
	p := pool.New(pool.WithWorkers(1))
	_, looked, fired := watchdogOf(t, p)
	x := 0
	p.Run(func(w *pool.Worker) {
		f := forkjoin.Fork(w, func(*pool.Worker) int { return 1 }) // queued, privately
		// Spin until the watchdog has checked the goroutine three
		// times: two in a row would be enough to report.
		for i := 0; looked() < 3 && !hasFired(fired); i++ {
			x += i & 1
		}
		x += f.Join(w)
	})
	p.Close()
	if hasFired(fired) {
		t.Error("the watchdog reported a task that was running on the CPU")
	}
	if x == 0 {
		t.Error("the spin did not run")
	}
}

// An idle pool, a task that blocks with nothing queued, and a task that
// blocks in a section while its worker runs its forks are not stalls: the
// watchdog never gets past W2 or W3, tick after tick.
func TestWatchdogSilent(t *testing.T) {
	needWatchdog(t)
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Setenv("FJ_WATCHDOG", "5ms")
	const ticksToWatch = 40 // ten thresholds
	waitTicks := func(ticks func() int64) {
		for n := ticks() + ticksToWatch; ticks() < n; {
			runtime.Gosched()
		}
	}

	p := pool.New(pool.WithWorkers(2))
	ticks, looked, fired := watchdogOf(t, p)
	forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 15) }) // then idle
	waitTicks(ticks)
	if looked() != 0 || hasFired(fired) {
		t.Errorf("idle pool: the watchdog looked at the workers' goroutines %d times (fired: %v)", looked(), hasFired(fired))
	}
	p.Close()

	p = pool.New(pool.WithWorkers(1))
	ticks, looked, fired = watchdogOf(t, p)
	gate := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(*pool.Worker) { <-gate }) // blocked, nothing else to do
	}()
	waitTicks(ticks)
	if looked() != 0 || hasFired(fired) {
		t.Errorf("blocked task, nothing queued: the watchdog looked %d times (fired: %v)", looked(), hasFired(fired))
	}
	close(gate)
	<-done
	p.Close()

	p = pool.New(pool.WithWorkers(1))
	ticks, looked, fired = watchdogOf(t, p)
	gate = make(chan struct{})
	done = make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(w *pool.Worker) {
			f := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
			pool.Blocking(func() { <-gate })
			f.Join(w)
		})
	}()
	waitTicks(ticks)
	if looked() != 0 || hasFired(fired) {
		t.Errorf("task blocked in a section: the watchdog looked %d times (fired: %v)", looked(), hasFired(fired))
	}
	close(gate)
	<-done
	p.Close()
}

// FJ_WATCHDOG turns the watchdog off, or sets its threshold; anything else
// is a mistake, reported when a pool is made.
func TestWatchdogSetting(t *testing.T) {
	needWatchdog(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, v := range []string{"off", "0"} {
		t.Setenv("FJ_WATCHDOG", v)
		p := pool.New(pool.WithWorkers(1))
		if _, _, _, ok := sched.Watchdog(sched.From[sched.Pool](p)); ok {
			t.Errorf("FJ_WATCHDOG=%s: the pool has a watchdog", v)
		}
		p.Close()
	}
	for _, v := range []string{"soon", "-1s"} {
		t.Setenv("FJ_WATCHDOG", v)
		if r := fjtest.Catch(func() { pool.New(pool.WithWorkers(1)).Close() }); !strings.Contains(fjtest.PanicMessage(r), "FJ_WATCHDOG=") {
			t.Errorf("FJ_WATCHDOG=%s: New panicked with %#v, want a message naming the variable", v, r)
		}
	}
}
