package sched

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The stall watchdog of builds with debug checks (-race, or the fjdebug
// tag): a task that blocks without a section (pool.Blocking) holds its
// worker, and once every worker of a pool is held so while work waits in
// its queues, the pool hangs silently, or ends in the runtime's "all
// goroutines are asleep". The watchdog turns that into a report, printed
// once per pool to stderr: the tasks that hold the workers, with their
// stacks, and the fix. The steps:
//
//	W1  Each worker's holder marks, in a word of the watchdog's, when it
//	    enters and leaves a task (runTask), takes the worker over in its
//	    main loop (takeOver) or gets it back inside a task (setHolder,
//	    after a wait or a section): a sequence number and an "in a task"
//	    bit. Only the holder writes the word, so the marks cost a load and
//	    a store, in debug builds only.
//	W2  Every quarter of the threshold, the watchdog reads each worker's
//	    mark and holder id. A worker is stuck when both have stayed the
//	    same, with the bit set, for the threshold: one goroutine has been
//	    inside one task all that time. Nothing else is looked at until
//	    every worker is stuck, so a pool that is idle (its holders in the
//	    main loop) or makes progress costs the watchdog a few loads.
//	W3  Work must be queued: in the injector, in a deque (private items
//	    included: Deque.Peek reads them, racily and only here, since a
//	    blocked owner cannot publish them), or a parked task resumable and
//	    waiting for its worker. A pool whose every worker blocks with
//	    nothing else to do is busy, not stuck.
//	W4  Every holder must be blocked: the header of its goroutine in
//	    runtime.Stack says neither running nor runnable. This is what keeps
//	    long CPU-bound tasks, which do finish, out of the report. W2-W4
//	    must hold at two ticks in a row, so that a goroutine caught for an
//	    instant in a GC assist or a lock is not mistaken for a blocked one.
//	W5  Then the report, once; the watchdog idles until Close stops it.
//
// FJ_WATCHDOG in the environment sets the threshold (a duration, such as
// 500ms; default 5s) or turns the watchdog off (off, or 0). It is read
// when a pool is created.

// defaultWatchdog is the threshold without FJ_WATCHDOG.
const defaultWatchdog = 5 * time.Second

type watchdog struct {
	after time.Duration // the threshold
	marks []watchMark   // W1, indexed by worker id
	out   io.Writer
	stop  chan struct{} // closed by Close
	done  chan struct{} // closed by the watchdog goroutine as it exits
	// For tests: the ticks so far, the times W2 and W3 held and W4 was
	// checked, and a channel closed once the report is out.
	ticks, looked atomic.Int64
	fired         chan struct{}
}

type watchMark struct {
	v atomic.Uint64 // sequence<<1 | in a task
	_ [cacheLine - 8]byte
}

// watchdogThreshold reads FJ_WATCHDOG: the threshold, or 0 for none.
func watchdogThreshold() time.Duration {
	s := os.Getenv("FJ_WATCHDOG")
	switch s {
	case "":
		return defaultWatchdog
	case "off", "0":
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		panic(fmt.Sprintf("pool: FJ_WATCHDOG=%q: want a positive duration such as 5s, or off", s))
	}
	return d
}

// startWatchdog sets up p's watchdog, before any worker starts (the marks
// must exist when the first holder writes one), unless FJ_WATCHDOG turns
// it off.
func (p *Pool) startWatchdog() {
	after := watchdogThreshold()
	if after == 0 {
		return
	}
	wd := &watchdog{
		after: after,
		marks: make([]watchMark, len(p.workers)),
		out:   os.Stderr,
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		fired: make(chan struct{}),
	}
	p.watch = wd
	go p.watchLoop(wd)
}

// stopWatchdog ends p's watchdog goroutine, at Close.
func (p *Pool) stopWatchdog() {
	if wd := p.watch; wd != nil {
		close(wd.stop)
		<-wd.done
	}
}

// markTask is W1: w's holder enters a task (inTask) or is between tasks.
// Only the holder calls it; callers test debugChecks first, so that
// plain builds compile it away.
func (w *Worker) markTask(inTask bool) {
	wd := w.pool.watch
	if wd == nil {
		return
	}
	m := &wd.marks[w.id].v
	v := (m.Load()>>1 + 1) << 1
	if inTask {
		v |= 1
	}
	m.Store(v)
}

// watchSeen is what the watchdog last saw of a worker (W2).
type watchSeen struct {
	mark  uint64
	g     int64
	since time.Time
}

func (p *Pool) watchLoop(wd *watchdog) {
	defer close(wd.done)
	tick := time.NewTicker(max(wd.after/4, time.Millisecond))
	defer tick.Stop()
	seen := make([]watchSeen, len(p.workers))
	suspect := 0 // consecutive ticks at which W2-W4 held
	for {
		select {
		case <-wd.stop:
			return
		case now := <-tick.C:
			wd.ticks.Add(1)
			report := p.stalled(wd, seen, now)
			if report == "" {
				suspect = 0
				continue
			}
			if suspect++; suspect < 2 {
				continue
			}
			io.WriteString(wd.out, report) // W5
			close(wd.fired)
			<-wd.stop
			return
		}
	}
}

// stalled checks W2-W4 at time now and returns the report if they hold,
// or "".
func (p *Pool) stalled(wd *watchdog, seen []watchSeen, now time.Time) string {
	stuck := true
	for i, w := range p.workers { // W2
		m, g := wd.marks[i].v.Load(), w.holder.Load()
		s := &seen[i]
		if m != s.mark || g != s.g || s.since.IsZero() {
			*s = watchSeen{mark: m, g: g, since: now}
		}
		if m&1 == 0 || g == 0 || now.Sub(s.since) < wd.after {
			stuck = false
		}
	}
	if !stuck {
		return ""
	}
	queued := int(p.inj.len()) // W3
	resumable := 0
	for _, w := range p.workers {
		queued += w.dq.Peek()
		resumable += int(w.nResumable.Load())
	}
	if queued == 0 && resumable == 0 {
		return ""
	}
	wd.looked.Add(1)
	stacks := goroutineStacks() // W4
	var b strings.Builder
	fmt.Fprintf(&b, "\nfj watchdog: every worker of pool %q has been inside one task for more than %v, blocked, "+
		"while work is queued (tasks in its queues: %d; parked tasks ready to resume: %d). "+
		"That work cannot run until one of these tasks returns.\n\nThe tasks holding the workers:\n",
		p.name, wd.after, queued, resumable)
	for i := range p.workers {
		st, ok := stacks[seen[i].g]
		if !ok || !blockedState(st) {
			return ""
		}
		fmt.Fprintf(&b, "\nworker %d: %s", i, st)
	}
	b.WriteString("\nFix: wrap the blocking call (the channel operation, lock, I/O or sleep near the top of " +
		"each stack above) in pool.Blocking, for example pool.Blocking(func() { v = <-ch }): the worker runs " +
		"other tasks while the call blocks, and the task resumes when it returns.\n")
	b.WriteString("\n(Reported once per pool, in builds with -race or the fjdebug tag; FJ_WATCHDOG sets the " +
		"threshold, default " + defaultWatchdog.String() + ", or turns the report off.)\n\n")
	return b.String()
}

// goroutineStacks returns the stack of every goroutine, by id, each
// starting with its header line ("goroutine 7 [chan send]:").
func goroutineStacks() map[int64]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	m := make(map[int64]string)
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		rest, ok := bytes.CutPrefix(g, []byte("goroutine "))
		if !ok {
			continue
		}
		i := bytes.IndexByte(rest, ' ')
		if i < 0 {
			continue
		}
		id, err := strconv.ParseInt(string(rest[:i]), 10, 64)
		if err != nil {
			continue
		}
		m[id] = strings.TrimRight(string(g), "\n") + "\n"
	}
	return m
}

// blockedState reports whether the goroutine whose stack starts with
// header is blocked: its state (the bracket in "goroutine 7 [chan send,
// 2 minutes]:") is none of those of a goroutine that runs, or is about
// to. A system call counts as blocked: that is where a task reading a
// file or a socket sits.
func blockedState(header string) bool {
	i := strings.IndexByte(header, '[')
	j := strings.IndexAny(header, ",]")
	if i < 0 || j < i {
		return false
	}
	switch header[i+1 : j] {
	case "running", "runnable", "preempted", "GC assist wait", "GC assist marking", "copystack":
		return false
	}
	return true
}
