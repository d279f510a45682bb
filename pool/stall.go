package pool

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/forkjoin/fj/internal/sched"
)

// StallReport describes tasks that blocked (on a channel, a lock, I/O, a
// sleep) without a blocking section (Blocking) while work waited for their
// worker. A task that blocks so holds its worker for as long as it blocks:
// the work queued behind it would wait, and if the task waits for that
// very work, the pool would hang. The pool watches its workers in every
// build: about a millisecond after a worker's task starts to wait while
// work waits for the worker, a spare worker takes that work; a spare that
// blocks gets one too, up to SpareLimit per worker; a spare retires soon
// after the block it stood in for ends. A parked task that is ready to
// resume, which only its own worker can run, is handed that worker over
// the blocked task's head (Stats.HandOvers; see the package doc,
// "Blocking"). The first such block is reported
// once per pool, a threshold after it began (WithStallThreshold), through
// the stall handler (WithStallHandler; by default String goes to standard
// error), and Stats counts every one.
//
// What is caught: a task waiting in the program's code, in a channel
// operation or select, sync.Mutex, RWMutex, Cond or WaitGroup, a sleep,
// network I/O, or a system call (a file read). What is not: a task that
// spins (a loop polling a flag or an atomic) waiting for work queued
// behind it on its own worker runs, as far as the pool can tell, and that
// work waits until the spin ends; if the spin waits for that work, the
// program hangs. Wait with a channel or a lock instead, or in a section
// (see forkjoin's package documentation, "Waiting").
//
// Looking costs nothing measurable: the pool reads each worker's
// goroutine state (a few loads per worker and millisecond), only while
// work is queued, and an idle pool runs no timer. A task that keeps a CPU
// busy for a long time runs, and is never reported. The report takes one
// dump of the goroutines, once per pool.
type StallReport struct {
	// Pool is the pool's name (WithName).
	Pool string
	// Threshold is the pool's threshold: how long the report waited after
	// the first block it describes.
	Threshold time.Duration
	// Queued estimates the tasks in the pool's queues, including those
	// that their worker has not yet made visible to others; Resumable
	// counts parked tasks (see Stats, Parked) whose wait is over and that
	// wait for their worker to come back to them (a spare cannot run
	// them: only the blocked task's return frees their worker).
	Queued, Resumable int
	// Spares is the number of spare workers the pool started since the
	// first block the report lists.
	Spares int
	// SpareLimit is the most spares that stand in for one worker at once,
	// and AtLimit whether a spare was wanted and not started because of
	// it (Stats.SparesAtLimit counts those times).
	SpareLimit int
	AtLimit    bool
	// Tasks lists the blocked tasks, the first one first.
	Tasks []StalledTask
}

// StalledTask is one of the blocked tasks of a StallReport.
type StalledTask struct {
	// Worker is the ID of the worker the task holds (or of the worker its
	// spare stands in for), and Spare whether it runs on a spare.
	Worker int
	Spare  bool
	// Goroutine is the id of the goroutine running the task, as
	// runtime.Stack and panics print it.
	Goroutine int64
	// State is what the task waits for, as runtime.Stack names it
	// ("chan receive", "sync.Mutex.Lock"), where known.
	State string
	// Blocked is how long the task had been seen blocked when the report
	// was made.
	Blocked time.Duration
	// Stack is that goroutine's stack, as runtime.Stack prints it, from
	// its header line ("goroutine 7 [chan receive]:") down, or "" if the
	// report's bounded dump did not reach it.
	Stack string
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
	fmt.Fprintf(&b, "\nfj: a task of pool %q blocked without pool.Blocking while work waited for its worker.\n", r.Pool)
	for i, t := range r.Tasks {
		if i == reportTasks {
			fmt.Fprintf(&b, "(and %d more blocked tasks)\n", len(r.Tasks)-i)
			break
		}
		where := fmt.Sprintf("worker %d", t.Worker)
		if t.Spare {
			where = fmt.Sprintf("a spare of worker %d", t.Worker)
		}
		state := t.State
		if state == "" {
			state = "blocked"
		}
		fmt.Fprintf(&b, "\ngoroutine %d on %s: %s for %v\n", t.Goroutine, where, state, t.Blocked.Round(time.Millisecond))
		b.WriteString(userFrames(t.Stack))
	}
	limit := ""
	if r.AtLimit {
		limit = fmt.Sprintf(", and reached its limit of %d per worker", r.SpareLimit)
	}
	fmt.Fprintf(&b, "\nThe pool ran the waiting work on %d spare worker(s) meanwhile%s (tasks queued now: %d; "+
		"parked tasks waiting for a blocked worker: %d).\n", r.Spares, limit, r.Queued, r.Resumable)
	b.WriteString("Fix: wrap the blocking call (the first frame above) in pool.Blocking, for example\n" +
		"pool.Blocking(func() { v = <-ch }): the worker runs other tasks while it blocks.\n" +
		"(Reported once per pool, a threshold after the first block: pool.WithStallThreshold, pool.WithStallHandler; Stats counts them.)\n\n")
	return b.String()
}

// userFrames formats a goroutine's stack for the report: the program's
// frames, at most reportFrames of them, the runtime's frames above the
// first of them and fj's own frames anywhere counted instead.
func userFrames(stack string) string {
	if stack == "" {
		return "  (its stack was not in the report's bounded goroutine dump)\n"
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
	return b.String()
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
// first block it describes (see StallReport). Default: 50 ms. Spares do
// not wait for it: they start about a millisecond after a worker's task
// blocks while work waits for the worker. d <= 0 turns the watch off: no
// spares, no report, and a pool whose task blocks without a section on
// work queued behind it then hangs, silently.
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
			SpareLimit: r.SpareLimit, AtLimit: r.AtLimit}
		for _, t := range r.Tasks {
			pr.Tasks = append(pr.Tasks, StalledTask(t))
		}
		h(pr)
	}
}
