package sched

import (
	"bytes"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The stall report (stall.md, W5): the first stall of a pool starts it,
// with the blocked holders' stacks from one goroutine dump; the stalls of
// the next threshold join it; the pool's handler receives it once.

// StallReport describes the blocks that cost the pool a hand-over (W5):
// what the stall handler receives. package pool turns it into its
// documented type.
type StallReport struct {
	Pool      string        // the pool's name
	Threshold time.Duration // how long the report waited after the first block
	Queued    int           // tasks in the pool's queues, private ones included (an estimate)
	Resumable int           // parked tasks ready to resume, waiting for their worker
	Spares    int           // hand-overs since the first block it lists
	// SpareLimit is the bound on tasks handed over per worker (Y1), and
	// AtLimit whether a hand-over was refused because of it.
	SpareLimit int
	AtLimit    bool
	// ParkedBehind is set when a parked task of a blocked task's worker
	// was ready to resume behind it: only its worker could run it (a
	// lock held across a join, say).
	ParkedBehind bool
	Tasks        []StalledTask // the blocked holders, the first one first
}

// StalledTask is a task that blocked while holding a worker.
type StalledTask struct {
	Worker    int           // the ID of the worker it held
	Goroutine int64         // the id of the goroutine running the task
	State     string        // what it waited for, as runtime.Stack names it ("chan receive")
	Blocked   time.Duration // how long it had been seen blocked when the report was made
	Stack     string        // its stack, as runtime.Stack prints it, header first; "" if not captured
	// NoStack says why Stack is empty: the goroutine was past the end
	// of the report's dump, or had ended when it was taken.
	NoStack string
}

// pendingReport is W5's report between the first stall and its delivery.
type pendingReport struct {
	first     time.Time
	handed    uint64 // hand-overs counted then (Stats)
	stacks    map[int64]string
	truncated int // the dump's size if it filled its buffer, else 0
	tasks     []StalledTask
	since     []time.Time // when each task was first seen blocked
	behind    bool
}

// chainGap is how soon after a hand-over the next link of a chain comes
// (W5): a confirmation (V5) and a task run up to its wait take a few
// milliseconds, and tens on a loaded machine.
const chainGap = 100 * time.Millisecond

// maxReportTasks bounds the tasks a report lists.
const maxReportTasks = 8

// noteStall is W5's collection: the first stall of the pool starts the
// report, with one dump of the goroutines; every stall seen until its
// delivery joins it. behind says whether a parked task of w's was ready
// to resume.
func (p *Pool) noteStall(rep **pendingReport, seen []stallSeen, w *remote, s *stallSeen, now time.Time, behind bool) {
	m := &p.stall
	if m.reported.Load() {
		return
	}
	r := *rep
	if r == nil {
		r = &pendingReport{first: now, handed: m.handOvers.Load()}
		var want []int64
		for i := range seen {
			if seen[i].looks > 0 {
				want = append(want, seen[i].g)
			}
		}
		m.dumps.Add(1)
		r.stacks, r.truncated = dumpStacks(want)
		*rep = r
	}
	r.behind = r.behind || behind
	if len(r.tasks) < maxReportTasks {
		t := StalledTask{Worker: w.id, Goroutine: s.g, State: s.wait.wait, Blocked: now.Sub(s.first), Stack: r.stacks[s.g]}
		switch {
		case t.Stack != "":
		case r.stacks == nil:
			t.NoStack = "it blocked after the report's goroutine dump was taken"
		case r.truncated > 0:
			t.NoStack = "it was past the first " + strconv.Itoa(r.truncated>>10) + " KiB of the goroutine dump"
		default:
			t.NoStack = "it had stopped waiting when the goroutine dump was taken"
		}
		r.tasks = append(r.tasks, t)
		r.since = append(r.since, s.first)
	}
}

// deliverReport is W5's delivery, once per pool: a threshold after the
// first stall, unless a worker was handed over in the last chainGap
// below the bound (a chain: tasks blocking one after another, each
// handed over in turn), in which case it waits, a second at most, to say
// whether the bound was reached; or now, when final (the monitor exits).
func (p *Pool) deliverReport(rep **pendingReport, final bool, now time.Time) {
	m := &p.stall
	r := *rep
	if r == nil {
		return
	}
	chaining := now.Sub(m.lastHandOver) < chainGap && m.atLimit.Load() == 0
	if age := now.Sub(r.first); !final && (age < m.threshold || chaining && age < m.threshold+time.Second) {
		return
	}
	*rep = nil
	if !m.reported.CompareAndSwap(false, true) {
		return
	}
	for i := range r.tasks {
		r.tasks[i].Blocked = now.Sub(r.since[i])
	}
	queued, _ := p.stallWork()
	out := StallReport{Pool: p.name, Threshold: m.threshold, Queued: queued, SpareLimit: maxDisplaced,
		Spares: int(m.handOvers.Load() - r.handed), AtLimit: m.atLimit.Load() != 0,
		ParkedBehind: r.behind, Tasks: r.tasks}
	for _, w := range p.workers {
		out.Resumable += int(w.nResumable.Load())
	}
	if m.handler != nil {
		m.handlerG.Store(goid())
		m.handler(out)
		m.handlerG.Store(0)
	}
}

// dumpStacks returns the stacks of the goroutines in want, by id, from
// one dump of every goroutine (runtime.Stack stops the world while it
// writes them: taken once per pool, for its report), in a buffer sized
// for the goroutines alive (4 KiB each: a holder's stack, with fj's
// frames under the program's, takes one or two), between 64 KiB and
// maxDump. truncated is the
// buffer's size if the dump filled it: goroutines past its end are
// missing.
func dumpStacks(want []int64) (stacks map[int64]string, truncated int) {
	size := min(max(64<<10, runtime.NumGoroutine()<<12), maxDump)
	buf := make([]byte, size+2)
	n := runtime.Stack(buf[:size], true)
	if n == size {
		truncated = size
	} else {
		n += copy(buf[n:], "\n\n") // end the last stack as the others end
	}
	stacks = make(map[int64]string, len(want))
	for rest := buf[:n]; len(rest) > 0; {
		i := bytes.Index(rest, []byte("\n\n"))
		if i < 0 {
			break // the last stack, cut short by the buffer
		}
		g := rest[:i]
		rest = rest[i+2:]
		if id, ok := stackGoroutine(g); ok && slices.Contains(want, id) {
			stacks[id] = strings.TrimRight(string(g), "\n") + "\n"
		}
	}
	return stacks, truncated
}

// maxDump bounds the report's dump: 64 MiB holds the stacks of a few
// hundred thousand parked goroutines.
const maxDump = 64 << 20

// stackGoroutine returns the id in the header of one goroutine's stack
// ("goroutine 7 [chan receive]:").
func stackGoroutine(g []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(g, []byte("goroutine "))
	if !ok {
		return 0, false
	}
	i := bytes.IndexByte(rest, ' ')
	if i < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	return id, err == nil
}
