package pool

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/forkjoin/fj/internal/sched"
)

// StallReport describes a stall: every worker of a pool has been blocked
// inside one task for longer than the pool's threshold (WithStallThreshold)
// while work waited in its queues. That is what a task that blocks (on a
// channel, a lock, I/O, a sleep) without a blocking section (Blocking)
// does to its worker; with every worker held so, the queued work could
// never run, and if the blocked tasks wait for that work, the pool would
// hang. The pool detects it in every build, reports it once through its
// stall handler (WithStallHandler; by default the report's String goes to
// standard error), and runs the queued work on spare workers meanwhile.
//
// Detecting a stall is cheap while the pool works: a pool watches only
// while every worker is busy and work is queued, with a timer that ticks
// four times per threshold, and an idle pool, or one with nothing queued,
// runs no timer at all. It tells blocked tasks from busy ones by their
// goroutines' states: a task that keeps a CPU busy for a long time, with
// work queued behind it, is not a stall.
type StallReport struct {
	// Pool is the pool's name (WithName).
	Pool string
	// Threshold is the pool's threshold: each task has held its worker
	// for at least that long.
	Threshold time.Duration
	// Queued estimates the tasks in the pool's queues, including those
	// that their worker has not yet made visible to others; Resumable
	// counts parked tasks (see Stats, Parked) whose wait is over and that
	// wait for their worker to come back to them.
	Queued, Resumable int
	// Spares is the number of spare workers the pool started for this
	// stall.
	Spares int
	// Tasks lists the tasks holding the workers, in worker order.
	Tasks []StalledTask
}

// StalledTask is one of the tasks of a stall: the worker it holds, its
// goroutine and that goroutine's stack.
type StalledTask struct {
	// Worker is the ID of the worker the task holds.
	Worker int
	// Goroutine is the id of the goroutine running the task, as
	// runtime.Stack and panics print it.
	Goroutine int64
	// Stack is that goroutine's stack, as runtime.Stack prints it, from
	// its header line ("goroutine 7 [chan receive, 2 minutes]:") down.
	Stack string
}

// String returns the report as the pool prints it by default: what
// happened, each task with its stack, and the fix.
func (r StallReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nfj: every worker of pool %q has been blocked inside one task for more than %v while work "+
		"is queued (tasks in its queues: %d; parked tasks ready to resume: %d). That work cannot run on "+
		"these workers until one of the tasks returns; the pool runs it on %d spare worker(s) meanwhile.\n\n"+
		"The tasks holding the workers:\n",
		r.Pool, r.Threshold, r.Queued, r.Resumable, r.Spares)
	for _, t := range r.Tasks {
		fmt.Fprintf(&b, "\nworker %d: %s", t.Worker, t.Stack)
	}
	b.WriteString("\nFix: wrap the blocking call (the channel operation, lock, I/O or sleep near the top of each " +
		"stack above) in pool.Blocking, for example pool.Blocking(func() { v = <-ch }): the worker runs other " +
		"tasks while the call blocks, and the task resumes when it returns. Until then, each stall costs " +
		"the pool at least the threshold (pool.WithStallThreshold), and its tasks run on fewer workers.\n" +
		"(Reported once per pool; pool.WithStallHandler receives it instead, and Stats counts the stalls.)\n\n")
	return b.String()
}

// WithStallThreshold sets how long every worker must have been blocked
// inside one task, while work is queued, before the pool reports a stall
// and starts spare workers (see StallReport). Default: 1 s. A shorter
// threshold recovers from a missing Blocking sooner; a pool whose every
// worker runs one task longer than the threshold, with work queued, has
// its goroutines' states looked at (runtime.Stack of every goroutine, which
// stops the world for 0.15 ms with 50 goroutines, 3 ms with 1,000, 25 ms
// with 10,000), after 1, 2, 4 and 8 thresholds and then every 8 while it
// stays that busy.
// d <= 0 turns detection off: a pool whose workers all block without a
// section then hangs, silently.
func WithStallThreshold(d time.Duration) Option {
	if d <= 0 {
		d = -1
	}
	return func(c *Config) { c.StallThreshold = d }
}

// WithStallHandler sets the function that receives the report of the
// pool's first stall (see StallReport), instead of standard error. It is
// called once per pool, on a goroutine of the pool's own, after the spare
// workers have started; it should return promptly (Close waits for it). A
// panic in it crashes the program, as in a function given to
// time.AfterFunc. Stats counts later stalls.
func WithStallHandler(f func(StallReport)) Option {
	if f == nil {
		panic("pool: WithStallHandler(nil); use func(pool.StallReport) {} to drop the report")
	}
	return func(c *Config) { c.StallHandler = f }
}

// stallHandler returns the scheduler's handler for h, or for the default,
// which prints the report to standard error.
func stallHandler(h func(StallReport)) func(sched.StallReport) {
	if h == nil {
		h = func(r StallReport) { io.WriteString(os.Stderr, r.String()) }
	}
	return func(r sched.StallReport) {
		pr := StallReport{Pool: r.Pool, Threshold: r.Threshold, Queued: r.Queued, Resumable: r.Resumable, Spares: r.Spares}
		for _, t := range r.Tasks {
			pr.Tasks = append(pr.Tasks, StalledTask(t))
		}
		h(pr)
	}
}
