package sched

import (
	"context"
	"runtime/pprof"
	"time"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// Stalls: a task that blocks without a blocking section holds its worker,
// and the work queued behind it waits. The pool watches its holders in
// every build (L1-L4, W1-W5): a holder that is blocked while work waits
// gets a spare worker standing in for it about a millisecond later
// (X1-X6, spares.go), the first such block is reported once, and a
// parked task ready to resume behind a blocked holder is handed its worker
// (H1-H5, handover.go). stall.md next to this file states the steps and
// argues why nothing is lost and nothing runs twice; the comments here
// cite them.

// DefaultStallThreshold is how long the report waits after the first
// block it describes (W5), when Config.StallThreshold is 0. Compensation
// does not wait for it: it starts about a millisecond after a holder
// blocks (W4).
const DefaultStallThreshold = 50 * time.Millisecond

// lookEvery is the monitor's tick while it is armed (W3, W4), and
// lookSoon its tick after a look that found a holder blocked for the
// first time with work waiting, or started a spare: a block is confirmed
// by a second look (L4), and a chain of spares that all block (X1) grows
// by one per confirmation.
const (
	lookEvery = time.Millisecond
	lookSoon  = 250 * time.Microsecond
)

// sparesPerWorker bounds the spares that stand in for one worker and for
// the spares standing in for it (X1): Stats.SparesAtLimit counts the
// times the bound stopped one.
const sparesPerWorker = 64

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
		p.slots.init(p.workers, 0) // no spares
		return
	}
	gLook() // L1, once per process, before any look
	// X1: a spare's holders-table index is Workers()+k, within 16 bits.
	n := len(p.workers)
	p.slots.init(p.workers, min(n*sparesPerWorker, (maxWorkers-n)/n*n))
}

// armStalls is W2's arming, after the caller's load of the state found
// stallIdle.
//
//go:noinline
func (p *Pool) armStalls() {
	m := &p.stall
	m.mu.Lock()
	// The CAS is sequentially consistent: with W3's store and re-check it
	// makes sure that a monitor runs after work queued behind busy
	// workers (stall.md, W3).
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

// watchStalls is the monitor goroutine: a tick every lookEvery while
// armed (W3-W5, X1, X4).
func (p *Pool) watchStalls() {
	m := &p.stall
	defer m.monitor.Done()
	// Started from a worker's goroutine: do not carry its labels.
	pprof.SetGoroutineLabels(context.Background())
	// The view, a few kilobytes with the spare slots, is kept for the
	// next monitor: a pool busy in short bursts starts one per burst.
	v := m.view.Swap(nil)
	if v == nil {
		slots := p.Slots()
		v = &stallView{seen: make([]stallSeen, slots), standIn: make([]int, slots)}
	}
	v.reset()
	for i := range v.standIn {
		v.standIn[i] = -1
	}
	defer m.view.Store(v) // last, after the delivery below
	defer p.deliverReport(v)
	// The first look comes a tick after arming, not at once: a pool busy
	// in short bursts (a fine-grained recursion run again and again) arms
	// at each burst, and a look at its start finds nothing blocked, only
	// taking a P from the workers while they fork (W3).
	t := time.NewTimer(lookEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.ticks.Add(1)
		}
		armed, soon := p.stallTick(v, time.Now())
		if !armed {
			if testHooks != nil && testHooks.beforeDisarm != nil {
				testHooks.beforeDisarm()
			}
			again := p.disarmStalls()
			if testHooks != nil && testHooks.afterDisarm != nil {
				testHooks.afterDisarm(again)
			}
			if !again {
				return
			}
		}
		d := lookEvery
		if soon {
			d = lookSoon
		}
		t.Reset(d)
	}
}

// armOnResume is W2's arming by a task made resumable (C3, H4): a parked
// task resumes only on its own worker, and if that worker's holder is
// blocked, only a hand-over (H1-H3) resumes it, which the monitor makes.
// The caller counted the task in nResumable (sequentially consistent)
// before this load of the state: with W3's store and re-check, either
// this load finds the monitor idle and arms it, or the monitor's re-check
// finds the task.
func (p *Pool) armOnResume() {
	if p.stallState.Load() == stallIdle {
		p.armStalls()
	}
}

// disarmStalls is W3: it stores stallIdle, then looks again, and reports
// whether the monitor re-armed itself (and so goes on ticking).
func (p *Pool) disarmStalls() bool {
	m := &p.stall
	// Sequentially consistent store, then loads of ctl and the queues:
	// W2's arming points make their work visible, then load ctl, then
	// this state (stall.md, W3); a task made resumable, then this state.
	//
	// Private tasks count too, as at the tick: a worker that wants work
	// (ctl != 0) is no reason to leave work queued since the tick's look
	// to it. A fork published meanwhile (its P2 found the monitor still
	// armed, and armed nothing) may have younger forks private behind it;
	// the searcher takes the published one, and its stopSearching, which
	// sees published work only, arms nothing; if the forker then blocks
	// without touching its deque, only this monitor can see them
	// (TestStallDisarmLeavesPrivateFork).
	p.stallState.Store(stallIdle)
	if queued, resumable := p.stallWork(); queued+resumable == 0 && (p.wantsWork() || !p.hasWork()) {
		return false
	}
	m.mu.Lock()
	again := !m.stopped && p.stallState.CompareAndSwap(stallIdle, stallArmed)
	m.mu.Unlock()
	return again
}

// stallTick is one tick of the monitor at time now (W3-W5, X1, X4). It
// reports whether the monitor stays armed, and whether it should look
// again soon (a holder was seen blocked with work waiting).
func (p *Pool) stallTick(v *stallView, now time.Time) (armed, soon bool) {
	m := &p.stall
	queued, resumable := p.stallWork()
	live := m.live.Load() > 0
	if queued+resumable == 0 && !live { // W3
		v.reset()
		return false, false
	}
	l := gLook()
	if !l.ok {
		return p.stallTickStack(v, now, queued, resumable), false
	}
	pub := p.published()
	slots := len(p.workers)
	if live {
		slots = len(v.seen)
	}
	for h := range slots {
		w := p.slotWorker(h)
		s := &v.seen[h]
		if w == nil {
			*s = stallSeen{}
			p.retireStandIn(v, h)
			continue
		}
		// W1: the mark and the holder. Loads of single words; a stale
		// pair only delays what follows by a tick.
		mark, g := w.inProgress.Load(), w.holder.Load()
		if mark != s.mark || g != s.g || s.since.IsZero() {
			*s = stallSeen{mark: mark, g: g, since: now}
		}
		st, ok := p.lookHolder(l, w, mark, g)
		if !ok || !st.blocked {
			s.looks = 0
			s.handOver = false    // a block again, after a wake: another attempt (H1)
			p.retireStandIn(v, h) // X4
			continue
		}
		if s.looks == 0 {
			s.blockedSince = now
		}
		s.looks++
		s.reason = st.reason
		own := w.dq.Stealer().Peek()
		mine := int(w.nResumable.Load())
		if own+mine == 0 && pub == 0 {
			continue // blocked, but nothing waits for it
		}
		if s.looks < 2 { // L4: the second look soon
			soon = true
			continue
		}
		// W4: blocked, with work waiting. W5 first, so that the dump
		// finds the holder still blocked and counts the spare below.
		if !s.counted {
			s.counted = true
			m.stalls.Add(1)
		}
		p.noteBlock(v, h, w, s, now)
		// H1-H3: a parked task of w's is ready, and only w can resume
		// it, or w's deque holds tasks no thief can take: hand w over
		// the blocked holder's head, once per block.
		unreachable := !wsdeque.PrivateSteals() && own > w.dq.Stealer().Len() // private tasks, no private steals
		if (mine > 0 || unreachable) && !s.handOver && !now.Before(v.handNext) {
			s.handOver = true
			if p.tryHandOver(v, w, g, now) {
				soon = true
				continue
			}
		}
		// X1: a stand-in, if it could take something: published work,
		// or (once) the holder's own.
		if pub > 0 || (own > 0 && !s.private) {
			if v.standIn[h] < 0 || !p.standInLive(v.standIn[h]) {
				if pub == 0 {
					s.private = true
				}
				p.startStandIn(v, h)
				soon = true // the spare may block too (a chain)
			} else {
				p.slot(v.standIn[h]).signal()
			}
		}
	}
	if v.rep != nil && now.Sub(v.rep.first) >= m.threshold {
		p.deliverReport(v)
	}
	return true, soon
}

func (v *stallView) reset() {
	for i := range v.seen {
		v.seen[i] = stallSeen{}
	}
}

// stallWork returns the tasks queued in p, private ones included as Peek
// guesses them, and the parked tasks ready to resume (W3).
func (p *Pool) stallWork() (queued, resumable int) {
	queued = int(p.inj.len())
	for w := range p.made() { // a retired spare's deque is empty (X4)
		queued += w.dq.Stealer().Peek()
		resumable += int(w.nResumable.Load())
	}
	return queued, resumable
}

// published returns the tasks a spare could take: in the injector, in the
// published parts of the spares' deques, and in the workers' deques, their
// private parts included where private steals exist (X1, X3).
func (p *Pool) published() int {
	n := int(p.inj.len())
	private := wsdeque.PrivateSteals()
	for w := range p.made() {
		switch {
		case private && w.asSpare == nil:
			// A thief, spares included, takes a worker's private
			// tasks too (wsdeque.md, D8; search.go, M2): they wait for
			// any stand-in as published ones do, so a chain of spares
			// through a barrier grows on them (X1).
			n += w.dq.Stealer().Peek()
		default:
			n += w.dq.Stealer().Len()
		}
	}
	return n
}

// noteBlock is W5's collection: the first compensated block of the pool
// starts a report, with the stacks of the holders blocked then (one
// bounded dump); every block seen until its delivery joins it.
func (p *Pool) noteBlock(v *stallView, h int, w *remote, s *stallSeen, now time.Time) {
	m := &p.stall
	if m.reported.Load() {
		return
	}
	if v.rep == nil {
		v.rep = &pendingReport{first: now, started: m.started.Load()}
		var want []int64
		for i := range v.seen {
			if v.seen[i].looks > 0 {
				want = append(want, v.seen[i].g)
			}
		}
		m.dumps.Add(1)
		v.rep.stacks = boundedStacks(want)
	}
	for i, t := range v.rep.tasks {
		if t.Goroutine == s.g {
			v.rep.tasks[i].State = s.reason
			v.rep.tasks[i].Blocked = now.Sub(v.rep.since[i])
			return
		}
	}
	if len(v.rep.tasks) < maxReportTasks {
		st := v.rep.stacks[s.g]
		if s.reason == "" { // L1 found no reason byte: the dump's header says it
			s.reason = headerState(st)
		}
		v.rep.tasks = append(v.rep.tasks, StalledTask{Worker: w.id, Spare: w.asSpare != nil, Goroutine: s.g,
			State: s.reason, Blocked: now.Sub(s.blockedSince), Stack: st})
		v.rep.since = append(v.rep.since, s.blockedSince)
	}
}

// maxReportTasks bounds the tasks a report lists.
const maxReportTasks = 8

// deliverReport is W5's delivery: the handler, once per pool.
func (p *Pool) deliverReport(v *stallView) {
	m := &p.stall
	if v.rep == nil || !m.reported.CompareAndSwap(false, true) {
		v.rep = nil
		return
	}
	rep := v.rep
	v.rep = nil
	queued, resumable := p.stallWork()
	r := StallReport{Pool: p.name, Threshold: m.threshold, Queued: queued, Resumable: resumable,
		Spares: int(m.started.Load() - rep.started), SpareLimit: sparesPerWorker, AtLimit: m.atLimit.Load() != 0, Tasks: rep.tasks}
	if m.handler != nil {
		m.handlerG.Store(goid())
		m.handler(r)
		m.handlerG.Store(0)
	}
}

// stallTickStack is the fallback look (L1: no layout found): the old
// watch, which tells blocked from running by the headers of a full
// goroutine dump. A dump stops the world for a time that grows with the
// goroutines, so it is taken only when every worker has been stuck in
// one task for a whole threshold with work queued, and backs off (1, 2,
// 4, 8 thresholds, and at least a hundred times what the last dump took).
func (p *Pool) stallTickStack(v *stallView, now time.Time, queued, resumable int) bool {
	m := &p.stall
	if p.ctl.Load() != 0 || queued+resumable == 0 {
		for h := range v.standIn {
			p.retireStandIn(v, h)
		}
		return m.live.Load() > 0
	}
	n := len(p.workers)
	all := true
	for i := range n {
		w := p.workers[i]
		mark, g := w.inProgress.Load(), w.holder.Load()
		s := &v.seen[i]
		if mark != s.mark || g != s.g || s.since.IsZero() {
			*s = stallSeen{mark: mark, g: g, since: now}
			p.retireStandIn(v, i)
		}
		if g == 0 || mark&runningMask == 0 || now.Sub(s.since) < m.threshold {
			all = false
		}
	}
	if !all || now.Before(v.next) {
		return true
	}
	m.dumps.Add(1)
	holders := make([]int64, n)
	for i := range n {
		holders[i] = v.seen[i].g
	}
	start := time.Now()
	var stacks map[int64]string
	v.buf, stacks = goroutineStacks(v.buf, holders)
	took := time.Since(start)
	v.backoff = min(max(2*v.backoff, m.threshold), 8*m.threshold)
	v.next = now.Add(max(v.backoff, 100*took))
	for i := range n {
		if st, ok := stacks[v.seen[i].g]; !ok || !blockedState(st) {
			return true
		}
	}
	before := m.started.Load()
	if p.published() > 0 {
		for i := range n {
			if v.standIn[i] < 0 || !p.standInLive(v.standIn[i]) {
				p.startStandIn(v, i)
			}
		}
	}
	if !v.seen[0].counted {
		v.seen[0].counted = true
		m.stalls.Add(1)
	}
	if !m.reported.Load() {
		v.rep = &pendingReport{first: now, stacks: stacks, started: before}
		for i := range n {
			g := v.seen[i].g
			v.rep.tasks = append(v.rep.tasks, StalledTask{Worker: i, Goroutine: g, State: headerState(stacks[g]),
				Blocked: now.Sub(v.seen[i].since), Stack: stacks[g]})
		}
		p.deliverReport(v)
	}
	return true
}
