package sched

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Stalls: a task that blocks without a blocking section holds its worker,
// and once every worker is held so while work is queued, nothing runs that
// work. The pool watches for that in every build (W1-W5), reports it once,
// and runs the queued work on spare workers meanwhile (X1-X6). stall.md
// next to this file states the steps and argues why nothing is lost and
// nothing runs twice; the comments here cite them.

// DefaultStallThreshold is how long every worker must have been blocked
// inside one task, with work queued, before the pool reports a stall and
// starts spares, when Config.StallThreshold is 0.
const DefaultStallThreshold = time.Second

// The values of Pool.stallState (W2, W3).
const (
	stallIdle  = 0 // no monitor goroutine, no timer
	stallArmed = 1 // a monitor goroutine runs, or is being started
	stallOff   = 2 // never: the pool watches for no stalls, or has closed
)

// The words of Worker.inProgress (W1): the tasks in progress in the low
// half, the tasks started in the high half.
const (
	runningMask = 1<<32 - 1
	startedOne  = 1 << 32
)

// StallReport describes a stall (W5): what the stall handler receives.
// package pool turns it into its documented type.
type StallReport struct {
	Pool      string        // the pool's name
	Threshold time.Duration // how long each task has held its worker, at least
	Queued    int           // tasks in the pool's queues, private ones included (an estimate)
	Resumable int           // parked tasks ready to resume, waiting for their worker
	Spares    int           // spares started for this stall (X1)
	Tasks     []StalledTask // one per worker, in worker order
}

// StalledTask is a task that holds a worker in a stall.
type StalledTask struct {
	Worker    int    // the worker's ID
	Goroutine int64  // the id of the goroutine running the task
	Stack     string // its stack, as runtime.Stack prints it, header first
}

// stallWatch is a pool's stall monitor and its spares.
type stallWatch struct {
	threshold time.Duration
	handler   func(StallReport)

	// mu orders the starts of the monitor goroutine (W2) and of spares
	// (X1) before Close's waits for them (X6): nothing starts once
	// stopped is set.
	mu      sync.Mutex
	stopped bool
	stop    chan struct{} // closed by Close
	monitor sync.WaitGroup
	// spareCarriers counts the carrier goroutines of spares, apart from
	// the workers' (Pool.goroutines): see X6.
	spareCarriers sync.WaitGroup

	// spares[k] is the spare that stands in for worker k (X1), or nil
	// before its first start; only the monitor stores into it.
	spares   []atomic.Pointer[Worker]
	made     atomic.Int32 // spares allocated so far
	live     atomic.Int32 // spares running now (Stats.Spares)
	started  atomic.Uint64
	stalls   atomic.Uint64
	reported bool // the monitor's only
	// handlerG is the monitor goroutine's id while it calls the handler
	// (W5), so that Close from the handler, which would wait for
	// itself, panics instead.
	handlerG atomic.Int64

	// For tests: monitor goroutines started, ticks, stack dumps.
	starts, ticks, dumps atomic.Int64
}

// spareState is what makes a Worker a spare (X1-X5).
type spareState struct {
	// retire is set by the monitor (X4) and read by the spare's holder.
	retire atomic.Bool
	// live is set by X1 and cleared by the exiting holder, last (X5).
	live atomic.Bool
	// The mark and holder of the worker stood in for when the spare
	// started: the monitor's only (X4).
	mark int64
	g    int64
}

// initStalls sets up p's stall watch from cfg.
func (p *Pool) initStalls(cfg Config) {
	m := &p.stall
	m.threshold = cfg.StallThreshold
	if m.threshold == 0 {
		m.threshold = DefaultStallThreshold
	}
	m.handler = cfg.StallHandler
	m.stop = make(chan struct{})
	if m.threshold < 0 {
		p.stallState.Store(stallOff)
		return
	}
	// X1: a spare's holders-table index is Workers()+k, within 16 bits.
	m.spares = make([]atomic.Pointer[Worker], min(len(p.workers), maxWorkers-len(p.workers)))
}

// armStalls is W2's arming, from a publisher or a searcher that saw every
// worker busy, after its load of the state found stallIdle.
//
//go:noinline
func (p *Pool) armStalls() {
	m := &p.stall
	m.mu.Lock()
	if !m.stopped && p.stallState.CompareAndSwap(stallIdle, stallArmed) {
		m.monitor.Add(1)
		m.starts.Add(1)
		go p.watchStalls()
	}
	m.mu.Unlock()
}

// stopStalls is X6, at Close, once the workers' carriers have exited: no
// monitor or spare starts after it, and it waits for those that run.
func (p *Pool) stopStalls() {
	m := &p.stall
	m.mu.Lock()
	m.stopped = true
	p.stallState.Store(stallOff)
	m.mu.Unlock()
	close(m.stop)
	m.monitor.Wait()
	m.spareCarriers.Wait()
}

// stallView is what the monitor has seen of the workers (W4).
type stallView struct {
	seen    []stallSeen
	suspect int  // consecutive checks that found every holder blocked
	inStall bool // a stall is confirmed and not over (Stats.Stalls)
	// next is when the next stack check may come, and backoff the delay
	// after one that found a holder running. They last as long as the
	// monitor goroutine, so that a pool kept busy by long CPU-bound tasks
	// has its goroutines dumped ever more rarely, whatever its tasks do.
	next    time.Time
	backoff time.Duration
	buf     []byte // runtime.Stack's buffer, kept for the next dump
}

type stallSeen struct {
	mark  int64
	g     int64
	since time.Time
}

// watchStalls is the monitor goroutine: a tick every quarter threshold
// while armed (W3-W5, X1, X4).
func (p *Pool) watchStalls() {
	m := &p.stall
	defer m.monitor.Done()
	// Started from a worker's goroutine: do not carry its labels.
	pprof.SetGoroutineLabels(context.Background())
	tick := max(m.threshold/4, time.Millisecond)
	v := &stallView{seen: make([]stallSeen, len(p.workers))}
	// A first look at once: the marks seen now start the threshold.
	if !p.stallTick(v, time.Now()) && !p.disarmStalls() {
		return
	}
	t := time.NewTimer(tick)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			m.ticks.Add(1)
			if !p.stallTick(v, now) && !p.disarmStalls() {
				return
			}
			// W4's second check comes soon after the first: a goroutine
			// blocked for a whole threshold is still blocked an eighth
			// of a tick later, one caught in a lock most likely not.
			if v.suspect == 1 {
				t.Reset(max(tick/8, time.Millisecond))
			} else {
				t.Reset(tick)
			}
		}
	}
}

// disarmStalls is W3: it stores stallIdle, then looks again, and reports
// whether the monitor re-armed itself (and so goes on ticking).
func (p *Pool) disarmStalls() bool {
	m := &p.stall
	p.stallState.Store(stallIdle)
	if p.wantsWork() || !p.hasWork() {
		return false
	}
	m.mu.Lock()
	again := !m.stopped && p.stallState.CompareAndSwap(stallIdle, stallArmed)
	m.mu.Unlock()
	return again
}

// stallTick is one tick of the monitor at time now: X4, then W3-W5 and
// X1. It reports whether the monitor stays armed.
func (p *Pool) stallTick(v *stallView, now time.Time) bool {
	m := &p.stall
	c := p.ctl.Load()
	queued, resumable := p.stallWork()
	spares := m.live.Load() > 0
	if spares {
		p.tendSpares(c != 0, queued > 0) // X4
	}
	if c != 0 || queued+resumable == 0 { // W3
		v.reset()
		return spares
	}
	all := true // W4: stuck
	for i, w := range p.workers {
		mark, g := w.inProgress.Load(), w.holder.Load()
		s := &v.seen[i]
		if mark != s.mark || g != s.g || s.since.IsZero() {
			*s = stallSeen{mark: mark, g: g, since: now}
			v.suspect, v.inStall = 0, false
		}
		if g == 0 || mark&runningMask == 0 || now.Sub(s.since) < m.threshold {
			all = false
		}
	}
	if !all || now.Before(v.next) || (v.inStall && !p.spareWanted()) {
		v.suspect = 0
		return true
	}
	// W4: blocked. Only now, with every worker stuck a whole threshold.
	m.dumps.Add(1)
	holders := make([]int64, len(v.seen))
	for i := range v.seen {
		holders[i] = v.seen[i].g
	}
	var stacks map[int64]string
	v.buf, stacks = goroutineStacks(v.buf, holders)
	for i := range p.workers {
		st, ok := stacks[v.seen[i].g]
		if !ok || !blockedState(st) {
			v.suspect = 0
			v.backoff = min(max(2*v.backoff, m.threshold), 8*m.threshold)
			v.next = now.Add(v.backoff)
			return true
		}
	}
	if v.suspect++; v.suspect < 2 {
		return true // checked again soon (watchStalls)
	}
	// Confirmed: X1 and W5. Spares are looked at again a threshold later
	// at the soonest (one may have run out of work and exited).
	v.next = now.Add(m.threshold)
	if !v.inStall {
		v.inStall = true
		m.stalls.Add(1)
	}
	started := p.startSpares(v)
	if !m.reported {
		m.reported = true
		r := StallReport{Pool: p.name, Threshold: m.threshold, Queued: queued, Resumable: resumable, Spares: started}
		for i := range p.workers {
			g := v.seen[i].g
			r.Tasks = append(r.Tasks, StalledTask{Worker: i, Goroutine: g, Stack: stacks[g]})
		}
		if m.handler != nil {
			m.handlerG.Store(goid())
			m.handler(r)
			m.handlerG.Store(0)
		}
	}
	return true
}

func (v *stallView) reset() {
	for i := range v.seen {
		v.seen[i] = stallSeen{}
	}
	v.suspect, v.inStall = 0, false
}

// stallWork returns the tasks queued in p, private ones included as Peek
// guesses them, and the parked tasks ready to resume (W3).
func (p *Pool) stallWork() (queued, resumable int) {
	queued = int(p.inj.len())
	for _, w := range p.workers {
		queued += w.dq.Stealer().Peek()
		resumable += int(w.nResumable.Load())
	}
	return queued, resumable
}

// spareWanted reports whether a confirmed stall could use another spare
// (X1): a worker has none live, and published work is queued.
func (p *Pool) spareWanted() bool {
	m := &p.stall
	for k := range m.spares {
		if s := m.spares[k].Load(); s == nil || !s.asSpare.live.Load() {
			return p.published() > 0
		}
	}
	return false
}

// published returns the tasks a spare could take: in the injector and in
// the published parts of the workers' deques (X1, X3).
func (p *Pool) published() int {
	n := int(p.inj.len())
	for _, w := range p.workers {
		n += w.dq.Stealer().Len()
	}
	return n
}

// startSpares is X1: a spare for each stuck worker without a live one, as
// many as there are published tasks to take. It returns how many it
// started.
func (p *Pool) startSpares(v *stallView) int {
	m := &p.stall
	want := p.published()
	m.mu.Lock()
	defer m.mu.Unlock()
	started := 0
	for k := range m.spares {
		if started == want || m.stopped {
			break
		}
		s := m.spares[k].Load()
		if s == nil {
			s = p.newSpare(k)
		}
		if s.asSpare.live.Load() {
			continue
		}
		s.asSpare.retire.Store(false)
		s.asSpare.mark, s.asSpare.g = v.seen[k].mark, v.seen[k].g
		s.asSpare.live.Store(true)
		m.live.Add(1)
		m.started.Add(1)
		p.startCarrier(s.newCarrier(), true)
		started++
	}
	return started
}

// newSpare makes the spare that stands in for worker k (X1).
func (p *Pool) newSpare(k int) *Worker {
	n := len(p.workers)
	s := &Worker{
		pool:       p,
		id:         k,
		index:      n + k,
		asSpare:    new(spareState),
		wake:       make(chan struct{}, 1),
		rng:        rand.Uint64() | 1,
		lastVictim: -1,
		labels: pprof.WithLabels(context.Background(),
			pprof.Labels("fj.pool", p.name, "fj.worker", strconv.Itoa(k), "fj.spare", "true")),
		regionName: p.name + " spare " + strconv.Itoa(k),
	}
	s.dq.Init(p.workers[0].dq.Cap())
	p.stall.spares[k].Store(s)
	p.stall.made.Add(1)
	return s
}

// tendSpares is X4: it marks for retirement the spares whose worker runs
// again (its mark or holder changed since the spare started), or all of
// them when some worker is idle, and wakes the others if work is queued.
func (p *Pool) tendSpares(idle, queued bool) {
	m := &p.stall
	for k := range m.spares {
		s := m.spares[k].Load()
		if s == nil || !s.asSpare.live.Load() {
			continue
		}
		w := p.workers[k]
		if idle || w.inProgress.Load() != s.asSpare.mark || w.holder.Load() != s.asSpare.g {
			s.asSpare.retire.Store(true)
			s.signal()
		} else if queued {
			s.signal()
		}
	}
}

// spareAt returns spare k, or nil.
func (p *Pool) spareAt(k int) *Worker {
	if k < 0 || k >= len(p.stall.spares) {
		return nil
	}
	return p.stall.spares[k].Load()
}

// spareHold is a spare's holder loop (X2, X4, X5), the counterpart of a
// worker's hold: c holds w, a spare.
func (w *Worker) spareHold(c *carrier) {
	for {
		if w.resumePending() { // C4
			if !w.handBack(c) {
				return
			}
			continue
		}
		idle := w.inProgress.Load()&runningMask == 0 && w.dq.Count() == 0
		if idle && w.asSpare.retire.Load() {
			w.exitSpare(c)
			return
		}
		if t := w.spareFind(); t != nil {
			w.runTask(t)
			continue
		}
		if idle {
			w.exitSpare(c) // X4: out of work
			return
		}
		// X4: tasks in progress (parked, or in sections) and nothing to
		// run: wait for one to resume (C3 sends a token) or for the
		// monitor to say work is queued. A token sent since the checks
		// above is in the channel already.
		<-w.wake
	}
}

// spareFind is X2's order: the spare's own deque (and, periodically, the
// injector first), then the injector and the workers' deques, then the
// other spares'.
func (w *Worker) spareFind() *task {
	if t := w.local(); t != nil {
		return t
	}
	return w.findWork()
}

// exitSpare is X5.
func (w *Worker) exitSpare(c *carrier) {
	w.unregister(c)
	w.publish()
	w.dismissSpares()
	w.pool.stall.live.Add(-1)
	w.asSpare.live.Store(false) // last: X1 may start the spare again
}

// stealSpares tries every live spare's deque once, for steal.
func (w *Worker) stealSpares() *task {
	m := &w.pool.stall
	for k := range m.spares {
		s := m.spares[k].Load()
		if s == nil || s == w {
			continue
		}
		if t := s.dq.Stealer().Steal(); t != nil {
			w.counts[countSteals]++
			return t
		}
	}
	return nil
}

// goroutineStacks returns the stacks of the goroutines whose ids are in
// want, by id, each starting with its header line ("goroutine 7 [chan
// send]:"), and the buffer it used, to be given back next time.
// runtime.Stack stops the world while it writes every goroutine's stack
// (0.15 ms with 50 goroutines, 3 ms with 1,000, 25 ms with 10,000 on the
// development machine); a buffer too small makes it start again, so the
// buffer is kept, and the scan after it copies only the stacks wanted.
func goroutineStacks(buf []byte, want []int64) ([]byte, map[int64]string) {
	if len(buf) == 0 {
		buf = make([]byte, max(1<<16, 4<<10*runtime.NumGoroutine()))
	}
	var n int
	for {
		n = runtime.Stack(buf, true)
		if n < len(buf) {
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	m := make(map[int64]string, len(want))
	for rest := buf[:n]; len(rest) > 0; {
		g := rest
		if i := bytes.Index(rest, []byte("\n\n")); i >= 0 {
			g, rest = rest[:i], rest[i+2:]
		} else {
			rest = nil
		}
		id, ok := stackGoroutine(g)
		if ok && slices.Contains(want, id) {
			m[id] = strings.TrimRight(string(g), "\n") + "\n"
		}
	}
	return buf, m
}

// stackGoroutine returns the id in the header of one goroutine's stack.
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
