package sched

import (
	"context"
	"math/rand/v2"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// Stalls: a task that blocks without a blocking section holds its worker,
// and the work queued behind it waits. The pool watches its holders in
// every build (look.go, V1-V5), and a monitor goroutine, armed only while
// work is queued (W1-W4), hands the worker of a holder blocked while work
// waits for it to another carrier (handover.go, Y1-Y7) and reports the
// first such block once (report.go, W5). stall.md next to this file
// states the steps and argues why nothing is lost and nothing runs twice;
// the comments here cite them.

// DefaultStallThreshold is how long the report waits after the first
// block it describes (W5), when Config.StallThreshold is 0. The hand-over
// does not wait for it: it comes about a millisecond after a holder
// blocks (W4, V5).
const DefaultStallThreshold = 50 * time.Millisecond

// lookEvery is the monitor's tick while it is armed (W3), and lookSoon
// the mean of its random ticks while a holder is seen blocked with work
// waiting; confirmLooks looks at least lookEvery apart from first to
// last confirm a block (V5).
const (
	lookEvery    = time.Millisecond
	lookSoon     = 250 * time.Microsecond
	confirmLooks = 5
)

// lockWait is how long a holder must wait for a lock (a sync.Mutex or an
// RWMutex), in the same wait, before it counts as blocked when no parked
// task of its worker is ready behind it (V5): a lock that tasks share for
// microseconds is held now and then by a goroutine that the operating
// system or Go's scheduler has preempted, and its waiter waits for as
// long, which is not a block of the program's: on a loaded machine, 160
// ms was seen (TestNetShortWaitsAreNoBlock in .ci/run's long runs).
const lockWait = time.Second

// isLockWait reports whether wait, a name V1 learnt, is a wait for a
// lock.
func isLockWait(wait string) bool {
	switch wait {
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock":
		return true
	}
	return false
}

// The values of Pool.stallState (W2, W3).
const (
	stallIdle  = 0 // no monitor goroutine, no timer
	stallArmed = 1 // a monitor goroutine runs, or is being started
	stallOff   = 2 // never: the pool watches for no stalls, or has closed
)

// stallWatch is a pool's stall monitor.
type stallWatch struct {
	threshold time.Duration
	handler   func(StallReport)

	// mu orders the starts of the monitor goroutine (W2) before Close's
	// wait for it: nothing starts once stopped is set.
	mu      Lock
	stopped bool
	stop    chan struct{} // closed by Close
	monitor sync.WaitGroup

	// The counts below are read by Stats from any goroutine, each a
	// single word whose own value is all a reader needs.
	stalls    atomic.Uint64 // blocks confirmed (Stats.Stalls)
	handOvers atomic.Uint64 // hand-overs (Stats.HandOvers)
	spares    atomic.Uint64 // those to a goroutine other than a resumed task's (Stats.SparesStarted)
	atLimit   atomic.Uint64 // hand-overs refused at the bound (Y1; Stats.SparesAtLimit)
	// reported is set by the one delivery of W5. A monitor that has
	// disarmed delivers its report on its way out, while the next one
	// may have started: the CAS lets one of them deliver.
	reported atomic.Bool
	// handlerG is the monitor goroutine's id while it calls the handler
	// (W5), so that Close from the handler, which would wait for
	// itself, panics instead.
	handlerG atomic.Int64

	// lastHandOver is when the monitor last handed a worker over (W5).
	// Only the monitor touches it.
	lastHandOver time.Time

	// For tests: monitor goroutines started, ticks, goroutine dumps.
	starts, ticks, dumps atomic.Int64
}

// stallSeen is what the monitor saw of a worker's holder at its last
// looks (V5).
type stallSeen struct {
	mark, g int64
	wait    gWait
	looks   int       // consecutive looks that found the same wait
	first   time.Time // the first of them
	counted bool      // the block counts in Stats.Stalls (W4)
	limited bool      // the block was refused at the bound (Y1)
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
	if m.threshold < 0 || !gLook().ok { // V1, once per process, before any look
		p.stallState.Store(stallOff)
	}
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
	// workers.
	if !m.stopped && p.stallState.CompareAndSwap(stallIdle, stallArmed) {
		m.monitor.Add(1)
		m.starts.Add(1)
		go p.watchStalls()
	}
	m.mu.Unlock()
}

// armOnResume is W2's arming by a task made resumable (C3, Y5), which
// counted itself in nResumable (sequentially consistent) before this load
// of the state: either the load finds the monitor idle and arms it, or the
// monitor's re-check (W3) finds the task.
func (p *Pool) armOnResume() {
	if p.stallState.Load() == stallIdle {
		p.armStalls()
	}
}

// stopStalls is Close's: no monitor starts after it, and it waits for the
// one that runs.
func (p *Pool) stopStalls() {
	m := &p.stall
	m.mu.Lock()
	m.stopped = true
	p.stallState.Store(stallOff)
	m.mu.Unlock()
	close(m.stop)
	m.monitor.Wait()
}

// watchStalls is the monitor goroutine: a tick every lookEvery while
// armed, sooner while a holder is seen blocked (W3-W5).
func (p *Pool) watchStalls() {
	m := &p.stall
	defer m.monitor.Done()
	// Started from a worker's goroutine: do not carry its labels.
	pprof.SetGoroutineLabels(context.Background())
	seen := make([]stallSeen, len(p.workers))
	var rep *pendingReport // W5, this monitor's
	defer func() { p.deliverReport(&rep, true, time.Now()) }()
	t := time.NewTimer(lookEvery) // W3: not at once
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.ticks.Add(1)
		}
		armed, soon := p.stallTick(seen, &rep, time.Now())
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
		if soon { // W3: random, so that V5's intervals vary
			d = lookSoon/2 + rand.N(lookSoon)
		}
		t.Reset(d)
	}
}

// disarmStalls is W3: it stores stallIdle, then looks again, and reports
// whether the monitor re-armed itself (and so goes on ticking).
func (p *Pool) disarmStalls() bool {
	m := &p.stall
	// Sequentially consistent store, then loads of ctl and the queues
	// (private tasks too): W2's arming points make their work visible,
	// then load ctl, then this state.
	p.stallState.Store(stallIdle)
	if n, _ := p.stallWork(); n == 0 && (p.wantsWork() || !p.hasWork()) {
		return false
	}
	m.mu.Lock()
	again := !m.stopped && p.stallState.CompareAndSwap(stallIdle, stallArmed)
	m.mu.Unlock()
	return again
}

// stallWork returns the tasks waiting in p: queued, private ones included
// as Peek guesses them, and parked and ready to resume (W3); and those
// another worker could take now (W4): in the injector and the deques,
// their private parts included where thieves take those (wsdeque.md,
// D8). A task handed over whose wait goes on waits for nothing of the
// pool's: once its wait ends, it asks for its worker back, which arms
// the monitor again (W2).
func (p *Pool) stallWork() (waiting, published int) {
	waiting = int(p.inj.len())
	published = waiting
	private := wsdeque.PrivateSteals()
	for _, w := range p.workers {
		peek := w.dq.Peek()
		waiting += peek + int(w.nResumable.Load())
		if !private {
			peek = w.dq.Len()
		}
		published += peek
	}
	return waiting, published
}

// stallTick is one tick of the monitor at time now (W3, W4, Y1). It
// reports whether the monitor stays armed, and whether it should look
// again soon (a holder was seen blocked with work waiting).
func (p *Pool) stallTick(seen []stallSeen, rep **pendingReport, now time.Time) (armed, soon bool) {
	m := &p.stall
	waiting, pub := p.stallWork()
	if waiting == 0 { // W3
		clear(seen)
		return false, false
	}
	l := gLook()
	for i, w := range p.workers {
		s := &seen[i]
		// W1: the mark and the holder. Loads of single words; a stale
		// pair only delays what follows by a tick.
		mark, g := w.inProgress.Load(), w.holder.Load()
		wt, blocked := l.lookHolder(w, mark, g, g)
		if !blocked {
			*s = stallSeen{}
			continue
		}
		own, mine := w.dq.Peek(), int(w.nResumable.Load())
		if own+mine == 0 && (pub == 0 || p.wantsWork()) {
			*s = stallSeen{} // blocked, but nothing waits for it (W4)
			continue
		}
		soon = true
		// V5: the same task, the same wait, not run since.
		if s.looks == 0 || mark != s.mark || g != s.g || wt != s.wait {
			*s = stallSeen{mark: mark, g: g, wait: wt, first: now}
		}
		s.looks++
		span := lookEvery
		if mine == 0 && isLockWait(wt.wait) {
			span = lockWait // V5: a lock, with no parked task of w's ready behind it
		}
		if s.looks < confirmLooks || now.Sub(s.first) < span {
			continue
		}
		// W4: a stall. The report first, so that its dump finds the
		// holder still blocked.
		if !s.counted {
			s.counted = true
			m.stalls.Add(1)
			p.noteStall(rep, seen, w, s, now, mine > 0)
		}
		if int(w.nDisplaced.Load()) >= maxDisplaced { // Y1
			if !s.limited {
				s.limited = true
				m.atLimit.Add(1)
			}
			continue
		}
		if p.handOver(l, w, g) {
			m.lastHandOver = now // W5: a chain grows
			*s = stallSeen{}
		}
	}
	p.deliverReport(rep, false, now)
	return true, soon
}
