package pool

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/forkjoin/fj/internal/sched"
)

// StallReport describes tasks that blocked (on a channel, a lock, a
// sleep, network I/O) without a blocking section (Blocking) while work
// waited for their worker. A task that blocks so holds its worker for as
// long as it blocks: the work queued behind it would wait, and if the
// task waits for that very work (a barrier its siblings must reach, a
// channel a queued task fills), the pool would hang. The pool watches
// its workers in every build: about a millisecond after a worker's task
// starts to wait in the program's code while work waits for the worker,
// the pool hands the worker to another goroutine, a spare carrier, which
// runs that work (a parked task of the worker's ready to resume
// included); the blocked task gets its worker back at its next call of
// fj's once its wait ends. Up to SpareLimit tasks of one worker are
// handed over at once. The first such block is reported once per pool, a
// threshold after it began (WithStallThreshold), through the stall
// handler (WithStallHandler; by default String goes to standard error),
// and Stats counts every one.
//
// What is caught: a task waiting in the program's code, in a channel
// operation or select, a sync.Cond or WaitGroup, a sleep, or network
// I/O, for the whole of a millisecond; in a sync.Mutex or RWMutex for a
// second (a millisecond if a parked task of its worker is ready to
// resume behind it: the lock held across a join). Never a task
// that computes, one waiting in fj's own code, or two tasks that share a
// lock for microseconds. What is not: a system call (a file read), which
// ends by itself and only costs its time; and a task that spins (a loop
// polling a flag or an atomic) waiting for work queued behind it on its
// own worker, which runs, as far as the pool can tell: if the spin waits
// for that work, the program hangs. Beyond SpareLimit tasks blocked on
// one worker, the rest of its work waits for them, and the program may
// hang: the report says so (AtLimit). Wait with a channel or a lock, in
// a section (see forkjoin's package documentation, "Waiting").
//
// Looking costs nothing measurable: the pool reads each worker's
// goroutine state (a few loads per worker and millisecond), only while
// work is queued, and an idle pool runs no timer. The report takes one
// dump of the goroutines, once per pool. Where the pool cannot read a
// goroutine's state (a platform where github.com/petermattis/goid has no
// assembly, or a Go release that moved the runtime's fields), it watches
// nothing and reports nothing.
type StallReport struct {
	// Pool is the pool's name (WithName).
	Pool string
	// Threshold is the pool's threshold: how long the report waited after
	// the first block it describes.
	Threshold time.Duration
	// Queued estimates the tasks in the pool's queues, including those
	// that their worker has not yet made visible to others, parked tasks
	// ready to resume and tasks handed over; Resumable counts parked tasks
	// (see Stats, Parked) whose wait is over and that wait for their
	// worker to come back to them.
	Queued, Resumable int
	// Spares is the number of hand-overs since the first block the
	// report lists (Stats.SparesStarted and HandOvers).
	Spares int
	// SpareLimit is the most tasks of one worker handed over at once,
	// and AtLimit whether a hand-over was refused because of it
	// (Stats.SparesAtLimit counts those): the work queued behind those
	// tasks waits for them, and the program may hang.
	SpareLimit int
	AtLimit    bool
	// ParkedBehind reports that a parked task of a blocked task's worker
	// was ready to resume behind it: only that worker can run it, so
	// without the hand-over it would have waited for the blocked task
	// (a lock held across a join, and a younger fork of the same task
	// that locks it, say).
	ParkedBehind bool
	// Tasks lists the blocked tasks, the first one first.
	Tasks []StalledTask
}

// StalledTask is one of the blocked tasks of a StallReport.
type StalledTask struct {
	// Worker is the ID of the worker the task holds.
	Worker int
	// Spare is always false.
	//
	// Deprecated: a blocked task's worker is handed to another goroutine,
	// and the task gets it back (see StallReport); no task runs on a
	// stand-in worker.
	Spare bool
	// Goroutine is the id of the goroutine running the task, as
	// runtime.Stack and panics print it.
	Goroutine int64
	// State is what the task waits for, as runtime.Stack names it
	// ("chan receive", "sync.Mutex.Lock").
	State string
	// Blocked is how long the task had been seen blocked when the report
	// was made.
	Blocked time.Duration
	// Stack is that goroutine's stack, as runtime.Stack prints it, from
	// its header line ("goroutine 7 [chan receive]:") down, or "" if the
	// report's dump did not have it; NoStack then says why.
	Stack, NoStack string
}

// reportFrames bounds the frames of the program's own that String prints
// for a task; reportTasks the tasks it prints a stack for.
const (
	reportFrames = 6
	reportTasks  = 2
)

// String returns the report as the pool prints it by default, in at most
// 40 lines: what happened, the first blocked tasks with the program's
// frames first (the runtime's and fj's own are elided, with a count), and
// the fix.
func (r StallReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nfj: a task of pool %q waited without pool.Blocking while work waited for its worker.\n", r.Pool)
	fix := ""
	for i, t := range r.Tasks {
		if i == reportTasks {
			fmt.Fprintf(&b, "(and %d more blocked tasks)\n", len(r.Tasks)-i)
			break
		}
		fmt.Fprintf(&b, "\ngoroutine %d on worker %d: %s for %v\n", t.Goroutine, t.Worker, t.State, t.Blocked.Round(time.Millisecond))
		frames, first := userFrames(t.Stack, t.NoStack)
		b.WriteString(frames)
		if fix == "" {
			fix = first
		}
	}
	fmt.Fprintf(&b, "\nThe pool handed the worker to another goroutine %d time(s) meanwhile, so that the waiting work ran "+
		"(tasks queued now: %d; parked tasks waiting for their worker: %d).\n", r.Spares, r.Queued, r.Resumable)
	if r.ParkedBehind {
		b.WriteString("A parked task of the blocked task's worker was ready to resume behind it: a lock held across a join?\n")
	}
	if r.AtLimit {
		fmt.Fprintf(&b, "The limit of %d blocked tasks per worker was reached: the work queued behind them waits for "+
			"them, and the program may hang.\n", r.SpareLimit)
	}
	if fix != "" {
		fmt.Fprintf(&b, "Fix: wrap the blocking call in %s in pool.Blocking, for example\n", fix)
	} else {
		b.WriteString("Fix: wrap the blocking call in pool.Blocking, for example\n")
	}
	b.WriteString("pool.Blocking(func() { v = <-ch }): the worker runs other tasks while it blocks.\n" +
		"(Reported once per pool, a threshold after the first block: pool.WithStallThreshold, pool.WithStallHandler; Stats counts them.)\n\n")
	return b.String()
}

// userFrames formats a goroutine's stack for the report: the program's
// frames, at most reportFrames of them, the runtime's frames above the
// first of them and fj's own frames anywhere counted instead. It returns
// the first of the program's frames too, or "".
func userFrames(stack, noStack string) (frames, first string) {
	if stack == "" {
		return "  (no stack: " + noStack + ")\n", ""
	}
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")[1:] // the header is said above
	var b strings.Builder
	shown, runtimeFrames, fjFrames, more := 0, 0, 0, 0
	for i := 0; i+1 < len(lines); i += 2 {
		fn := strings.TrimPrefix(strings.TrimSpace(lines[i]), "created by ")
		switch {
		case strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "internal/") ||
			strings.HasPrefix(fn, "time.Sleep"):
			if shown == 0 {
				runtimeFrames++
				continue
			}
		case ownFrame(fn):
			fjFrames++
			continue
		}
		if shown == reportFrames {
			more++
			continue
		}
		if shown == 0 {
			first = fn
			if i := strings.LastIndexByte(fn, '('); i > 0 && strings.HasSuffix(fn, ")") {
				first = fn[:i] // the arguments
			}
		}
		shown++
		b.WriteString("  " + fn + "\n  " + lines[i+1] + "\n")
	}
	var el []string
	if runtimeFrames > 0 {
		el = append(el, fmt.Sprintf("%d of the runtime and standard library above", runtimeFrames))
	}
	if fjFrames > 0 {
		el = append(el, fmt.Sprintf("%d of fj's own", fjFrames))
	}
	if more > 0 {
		el = append(el, fmt.Sprintf("%d more of the program's", more))
	}
	if len(el) > 0 {
		fmt.Fprintf(&b, "  (frames elided: %s)\n", strings.Join(el, ", "))
	}
	return b.String(), first
}

// ownFrame reports whether a stack's function line is fj's own code (not
// its tests or examples, which are the program's there).
func ownFrame(fn string) bool {
	const mod = "github.com/forkjoin/fj/"
	if !strings.HasPrefix(fn, mod) {
		return false
	}
	pkg := fn[len(mod):]
	if i := strings.IndexByte(pkg, '.'); i >= 0 {
		pkg = pkg[:i]
	}
	return !strings.HasSuffix(pkg, "_test") && !strings.HasPrefix(pkg, "examples") && !strings.HasPrefix(pkg, "bench")
}

// WithStallThreshold sets how long the stall report waits after the
// first block it describes (see StallReport). Default: 50 ms. The
// hand-over does not wait for it: it comes about a millisecond after a
// worker's task blocks while work waits for the worker. d <= 0 turns the
// watch off: no hand-over, no report, and a pool whose task blocks
// without a section on work queued behind it then hangs, silently.
func WithStallThreshold(d time.Duration) Option {
	if d <= 0 {
		d = -1
	}
	return func(c *Config) { c.StallThreshold = d }
}

// WithStallHandler sets the function that receives the pool's stall
// report (see StallReport), instead of standard error. It is called once
// per pool, on a goroutine of the pool's own; it should return promptly
// (Close waits for it). A panic in it crashes the program, as in a
// function given to time.AfterFunc. Stats counts every stall.
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
		pr := StallReport{Pool: r.Pool, Threshold: r.Threshold, Queued: r.Queued, Resumable: r.Resumable, Spares: r.Spares,
			SpareLimit: r.SpareLimit, AtLimit: r.AtLimit, ParkedBehind: r.ParkedBehind}
		for _, t := range r.Tasks {
			pr.Tasks = append(pr.Tasks, StalledTask{Worker: t.Worker, Goroutine: t.Goroutine, State: t.State,
				Blocked: t.Blocked, Stack: t.Stack, NoStack: t.NoStack})
		}
		h(pr)
	}
}
