package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

// The sleep control word's model: each worker's place in sleep.md's table
// of states, from which the three counts of pool.ctl follow. The real
// word is driven by the real code where it can run alone on one goroutine
// (startSearching, stopSearching, wakeOnce/wakeOne through notify,
// leaveSleep, awaitNews, and sleep itself when its S2 re-check finds work
// or a token is already waiting for its S3), and by the same constant
// deltas sleep.go uses where the step is inline in a function that would
// block (S1's announcement before the store of asleep, N1's two moves).
//
// The pool is bare (ctlPool): no carriers, no stall monitor, every queue
// empty except during a cancelled sleep's re-check. So the wake paths that
// depend on queued work (S4 without work, U3a's retry) do nothing here;
// TestU3aGiveBackLooksAgain and the pool tests cover them.

// ctlState is a worker's state in the model (sleep.md, "Worker states").
type ctlState int

const (
	csRunning   ctlState = iota // running a task: not counted
	csIdle                      // out of work, refused a unit by U1: not counted
	csSearching                 // holds a searching unit
	csWaiting                   // holds a unit moved to waiting (N1)
	csSleepy                    // announced (S1), sleepState not yet asleep
	csAsleep                    // announced, sleepState asleep: claimable
	csClaimed                   // claimed by a waker, which counted a searching unit for it (U2)
)

var ctlStateNames = [...]string{"running", "idle", "searching", "waiting", "sleepy", "asleep", "claimed"}

func (s ctlState) String() string { return ctlStateNames[s] }

type ctlModel struct {
	n     int
	state []ctlState
	token []bool // a token waits in the worker's wake channel
	news  uint64
}

// counts derives ctl's three counts from the workers' states: a claimed
// worker is counted sleeping until S5 and searching from its claim (the
// waker's unit, U2).
func (m *ctlModel) counts() (searching, sleeping, waiting int) {
	for _, s := range m.state {
		switch s {
		case csSearching:
			searching++
		case csWaiting:
			waiting++
		case csSleepy, csAsleep:
			sleeping++
		case csClaimed:
			searching++
			sleeping++
		}
	}
	return
}

// mayTake is U1's cap, from sleep.md's words: a unit is taken unless
// searchers and waiters together are already at least half the workers
// not sleeping; at least one may always search.
func (m *ctlModel) mayTake() bool {
	s, l, w := m.counts()
	busy := s + w
	return busy == 0 || 2*busy < m.n-l
}

func (m *ctlModel) asleep() (ws []int) {
	for i, s := range m.state {
		if s == csAsleep {
			ws = append(ws, i)
		}
	}
	return ws
}

// modelRampWakes is S4's count, from sleep.md: a searcher that found work
// wakes sleepers, each of which then searches, up to two, while searchers
// and waiters stay fewer than half the workers awake, and always one if
// it was the last and somebody sleeps. s and l are the searchers (with
// waiters) and sleepers after it stopped.
func modelRampWakes(s, l, n int) int {
	k := 0
	for ; k < 2 && l > 0; k++ {
		if s != 0 && 2*s >= n-l {
			break
		}
		s, l = s+1, l-1
	}
	return k
}

func encodeCtl(searching, sleeping, waiting int) uint64 {
	return uint64(searching) | uint64(sleeping)<<20 | uint64(waiting)<<40
}

// ctlPool is a pool with n workers and nothing else running: the control
// word, the workers' sleep states, wake channels and empty deques. Every
// worker starts counted as searching, as New makes them.
func ctlPool(n int) *Pool {
	p := &Pool{workers: make([]*remote, n)}
	p.stallState.Store(stallArmed) // so that nothing arms a monitor (W2)
	for i := range p.workers {
		w := &Worker{pool: p, id: i, wake: make(chan struct{}, 1), searching: true}
		w.dq.Init(16)
		p.workers[i] = w.remote()
	}
	p.ctl.Store(uint64(n) * searchingOne)
	return p
}

type ctlChecker struct {
	t    testing.TB
	desc string
	p    *Pool
	m    ctlModel
	step int
	log  []string
}

func newCtlChecker(t testing.TB, n int, desc string) *ctlChecker {
	c := &ctlChecker{t: t, desc: desc, p: ctlPool(n), m: ctlModel{n: n, state: make([]ctlState, n), token: make([]bool, n)}}
	for i := range c.m.state {
		c.m.state[i] = csSearching
	}
	c.check()
	return c
}

func (c *ctlChecker) fail(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("%s, step %d (%v), states %v: %s", c.desc, c.step, c.log, c.m.state, fmt.Sprintf(format, args...))
}

func (c *ctlChecker) note(i int, op string) {
	c.step++
	c.log = append(c.log, fmt.Sprintf("%d:%s", i, op))
	if len(c.log) > 10 {
		c.log = c.log[1:]
	}
}

// check compares the whole word with the model's counts (so no field went
// below zero or borrowed from its neighbour), the accessors with them,
// every worker's searching flag, sleep state and token, and pool.news.
func (c *ctlChecker) check() {
	c.t.Helper()
	s, l, w := c.m.counts()
	ctl := c.p.ctl.Load()
	if want := encodeCtl(s, l, w); ctl != want {
		c.fail("ctl = %#x, want %#x (searching %d, sleeping %d, waiting %d)", ctl, want, s, l, w)
	}
	if int(searchingOf(ctl)) != s || int(sleepingOf(ctl)) != l || int(waitingOf(ctl)) != w {
		c.fail("accessors read %d/%d/%d, want %d/%d/%d",
			searchingOf(ctl), sleepingOf(ctl), waitingOf(ctl), s, l, w)
	}
	for i, st := range c.m.state {
		v := c.p.workers[i].asHolder() // the model plays every worker's holder
		if want := st == csSearching || st == csWaiting; v.searching != want {
			c.fail("worker %d (%v): searching flag %v", i, st, v.searching)
		}
		want := uint32(awake)
		switch st {
		case csAsleep:
			want = asleep
		case csClaimed:
			want = claimed
		}
		if got := v.sleepState.Load(); got != want {
			c.fail("worker %d (%v): sleepState %d, want %d", i, st, got, want)
		}
		if got := len(v.wake) == 1; got != c.m.token[i] {
			c.fail("worker %d (%v): token %v, model %v", i, st, got, c.m.token[i])
		}
	}
	if got := c.p.news.Load(); got != c.m.news {
		c.fail("news = %d, model %d", got, c.m.news)
	}
}

// claims finds the workers the real code claimed (asleep → claimed) in an
// operation the model expects to claim want of its asleep workers, and
// moves them to csClaimed with the waker's token.
func (c *ctlChecker) claims(want int) {
	c.t.Helper()
	got := 0
	for i, st := range c.m.state {
		if c.p.workers[i].sleepState.Load() != claimed || st == csClaimed {
			continue
		}
		if st != csAsleep {
			c.fail("worker %d (%v) claimed, but it was not asleep", i, st)
		}
		c.m.state[i] = csClaimed
		c.m.token[i] = true
		got++
	}
	if got != want {
		c.fail("%d sleepers claimed, want %d", got, want)
	}
}

// Operations. Each is one step of one worker (or of a publisher outside
// the pool), legal in the states listed; apply skips it elsewhere.
const (
	czStart       = iota // running or idle: startSearching (U1)
	czFound              // searching: found work, stopSearching(true) (U4, S4)
	czHandOff            // searching: stopSearching(false), to hand the worker to a resumed task (U4)
	czToWaiting          // searching: N1, the unit moves to waiting
	czToSearch           // waiting: N1, and back
	czAwaitNews          // searching: the real awaitNews, no news (N1 both ways)
	czAnnounce           // searching or idle: S1's add (sleepState still awake)
	czStoreAsleep        // sleepy: S1's store of asleep
	czCancel             // asleep or claimed: S2 found something, leaveSleep(false) (S5)
	czWoken              // asleep with a token, or claimed: S3's receive, leaveSleep(true) (S5)
	czSleepWork          // searching or idle: the real sleep, whose S2 sees a queued task (S1, S2, S5)
	czSleepToken         // searching or idle, with a token waiting: the real sleep, parking on it (S1-S3, S5)
	czNotify             // a publisher outside the pool: notify (P2, P3, U2, U3)
	czSignal             // a token for the worker (a resume, Close): any state
	czIdleRun            // idle: took a task from the injector without a unit
	czRun                // any state: nothing (the fuzzer's filler)
	czOps
)

var czNames = [...]string{"start", "found", "handoff", "toWaiting", "toSearch", "awaitNews", "announce",
	"storeAsleep", "cancel", "woken", "sleepWork", "sleepToken", "notify", "signal", "idleRun", "nop"}

// legal reports whether op is a step worker i can take in its state.
func (c *ctlChecker) legal(i, op int) bool {
	switch st := c.m.state[i]; op {
	case czStart:
		return st == csRunning || st == csIdle
	case czFound, czHandOff, czToWaiting, czAwaitNews:
		return st == csSearching
	case czToSearch:
		return st == csWaiting
	case czAnnounce, czSleepWork:
		return st == csSearching || st == csIdle
	case czSleepToken:
		return (st == csSearching || st == csIdle) && c.m.token[i]
	case czStoreAsleep:
		return st == csSleepy
	case czCancel:
		return st == csAsleep || st == csClaimed
	case czWoken:
		return st == csClaimed || (st == csAsleep && c.m.token[i])
	case czIdleRun:
		return st == csIdle
	}
	return true
}

// leave is S5 in the model: off the sleeping count; a claimed worker
// keeps the waker's unit; another takes one as U1 would, counted after
// it left sleeping.
func (c *ctlChecker) leave(i int) {
	if c.m.state[i] == csClaimed {
		c.m.state[i] = csSearching
		return
	}
	c.m.state[i] = csIdle // off the sleeping count first
	if c.m.mayTake() {
		c.m.state[i] = csSearching
	}
}

// announce is S1 in the model: onto the sleeping count, off searching.
func (c *ctlChecker) announce(i int) { c.m.state[i] = csSleepy }

func (c *ctlChecker) apply(i, op int) {
	c.t.Helper()
	if !c.legal(i, op) {
		return
	}
	c.note(i, czNames[op])
	p, w := c.p, c.p.workers[i].asHolder() // the model plays every worker's holder
	switch op {
	case czStart:
		take := c.m.mayTake()
		w.startSearching()
		if take {
			c.m.state[i] = csSearching
		} else {
			c.m.state[i] = csIdle
		}
	case czFound:
		c.m.state[i] = csRunning
		s, l, wt := c.m.counts()
		k := modelRampWakes(s+wt, l, c.m.n)
		if got := rampWakes(encodeCtl(s, l, wt), uint32(c.m.n)); got != k {
			c.fail("rampWakes = %d, model %d", got, k)
		}
		w.stopSearching(true)
		c.claims(min(k, len(c.m.asleep())))
	case czHandOff:
		c.m.state[i] = csRunning
		w.stopSearching(false) // every queue is empty: it wakes nobody
	case czToWaiting:
		p.ctl.Add(searchingToWaiting)
		c.m.state[i] = csWaiting
	case czToSearch:
		p.ctl.Add(waitingToSearching)
		c.m.state[i] = csSearching
	case czAwaitNews:
		if w.awaitNews() {
			c.fail("awaitNews reported news nobody published")
		}
	case czAnnounce:
		// S1 as sleep does it, with the same deltas; the store of
		// asleep is czStoreAsleep, so that wakers can meet the window.
		delta := uint64(sleepingOne)
		if w.searching {
			w.searching = false
			delta += minusSearching
		}
		p.ctl.Add(delta)
		c.announce(i)
	case czStoreAsleep:
		w.sleepState.Store(asleep)
		c.m.state[i] = csAsleep
	case czCancel:
		w.leaveSleep(false)
		c.m.token[i] = false // a claimed worker takes the waker's token; another drops a stale one
		c.leave(i)
	case czWoken:
		<-w.wake // S3
		c.m.token[i] = false
		w.leaveSleep(true)
		c.leave(i)
	case czSleepWork:
		t := newChanTask()
		if !w.dq.Push(&t.task) {
			c.fail("push on an empty deque failed")
		}
		w.dq.Publish()
		if !w.sleep() {
			c.fail("sleep parked with a task queued")
		}
		if w.dq.Pop() != &t.task {
			c.fail("the queued task is gone")
		}
		c.announce(i)
		c.m.token[i] = false // S5 drops a stale token
		c.leave(i)
	case czSleepToken:
		if w.sleep() {
			c.fail("sleep's re-check found work in an empty pool")
		}
		c.announce(i)
		c.m.token[i] = false
		c.leave(i)
	case czNotify:
		s, l, wt := c.m.counts()
		want := 0
		switch {
		case s != 0 || s+l+wt == 0:
			// P2: a searcher will see it, or every worker is busy.
		case wt != 0:
			c.m.news++ // P3
		default:
			want = min(1, len(c.m.asleep())) // U2, or U3
		}
		p.notify(nil)
		c.claims(want)
	case czSignal:
		w.remote().signal()
		c.m.token[i] = true
	case czIdleRun:
		c.m.state[i] = csRunning
	}
	c.check()
}

// drain ends any sequence by bringing every worker to running, taking
// each legal way out of its state: what the model allows must be possible
// to complete, and the counts must come back to 0.
func (c *ctlChecker) drain() {
	c.t.Helper()
	for range 8 * c.m.n {
		all := true
		for i, st := range c.m.state {
			switch st {
			case csRunning:
				continue
			case csIdle:
				c.apply(i, czIdleRun)
			case csSearching:
				c.apply(i, czFound)
			case csWaiting:
				c.apply(i, czToSearch)
			case csSleepy:
				c.apply(i, czStoreAsleep)
			case csAsleep, csClaimed:
				c.apply(i, czCancel)
			}
			all = false
		}
		if all {
			if ctl := c.p.ctl.Load(); ctl != 0 {
				c.fail("every worker running, ctl = %#x", ctl)
			}
			return
		}
	}
	c.fail("workers still idle after draining")
}

var ctlWorkerCounts = []int{1, 2, 3, 4, 5, 7, 8, 16}

// TestCtlMatchesModel drives the control word and ctlModel with random
// legal steps of random workers, on pools of 1 to 16 workers.
func TestCtlMatchesModel(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	seeds := fjtest.Small(1000, 100)
	if fjtest.Long() {
		seeds *= 20
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 0xc71))
		n := ctlWorkerCounts[seed%len(ctlWorkerCounts)]
		c := newCtlChecker(t, n, fmt.Sprintf("seed %d, %d workers", seed, n))
		for range 1 + r.IntN(200) {
			i := r.IntN(n)
			var ops []int
			for op := range czOps {
				if c.legal(i, op) {
					ops = append(ops, op)
				}
			}
			c.apply(i, ops[r.IntN(len(ops))])
		}
		c.drain()
	}
}

// FuzzCtl interprets its input as a worker count (first byte) and steps
// (low four bits: the operation, high four: the worker), applies the
// legal ones to a bare pool's control word and to ctlModel, and fails at
// the first difference in a count, a flag, a sleep state or a token.
func FuzzCtl(f *testing.F) {
	op := func(i, op int) byte { return byte(i<<4 | op) }
	f.Add([]byte{0})
	// Two workers find work, one sleeps, the other's next find wakes it.
	f.Add([]byte{1, op(0, czFound), op(1, czFound), op(0, czStart), op(1, czStart), op(1, czAnnounce),
		op(1, czStoreAsleep), op(0, czFound), op(1, czWoken)})
	// U3's window: a publisher meets a sleeper counted but not asleep.
	f.Add([]byte{2, op(0, czFound), op(1, czFound), op(2, czAnnounce), op(0, czNotify), op(2, czStoreAsleep),
		op(0, czNotify), op(2, czCancel)})
	// N1 and P3: news for a waiter; U1 refusals while units wait.
	f.Add([]byte{3, op(0, czToWaiting), op(1, czFound), op(2, czFound), op(3, czFound), op(1, czStart),
		op(1, czNotify), op(0, czToSearch), op(2, czStart), op(2, czSleepWork)})
	// Stray tokens: a sleep that parks on one, a claim on top of one.
	f.Add([]byte{4, op(0, czSignal), op(0, czSleepToken), op(1, czSignal), op(1, czAnnounce),
		op(1, czStoreAsleep), op(2, czFound), op(1, czCancel)})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := ctlWorkerCounts[int(data[0])%len(ctlWorkerCounts)]
		c := newCtlChecker(t, n, fmt.Sprintf("fuzz, %d workers", n))
		ops := data[1:]
		if len(ops) > 256 {
			ops = ops[:256]
		}
		for _, b := range ops {
			c.apply(int(b>>4)%n, int(b&15))
		}
		c.drain()
	})
}

// TestCtlFieldsDoNotBorrow checks the encoding itself: the accessors read
// back each field at its edges, every delta sleep.go and search.go apply
// changes its fields by one and leaves the others alone (no borrow, no
// carry) wherever the count it takes from is positive and the one it adds
// to is below the field's top, and every count of workers fits a field.
func TestCtlFieldsDoNotBorrow(t *testing.T) {
	if maxWorkers > countMask {
		t.Fatalf("maxWorkers %d does not fit a %d-bit count", maxWorkers, 20)
	}
	if searchingMask != countMask || sleepingOne != countMask+1 || waitingOne != sleepingOne<<20 {
		t.Fatal("the fields are not three adjacent 20-bit counts")
	}
	edges := []int{0, 1, 2, maxWorkers - 1, maxWorkers, countMask - 1, countMask}
	type delta struct {
		name       string
		d          uint64
		ds, dl, dw int
	}
	one := uint64(1) // S1 and S5 add two deltas at run time; as constants they overflow
	deltas := []delta{
		{"searchingOne", searchingOne, 1, 0, 0},
		{"minusSearching", minusSearching, -1, 0, 0},
		{"sleepingOne", sleepingOne, 0, 1, 0},
		{"minusSleeping", minusSleeping, 0, -1, 0},
		{"searchingToWaiting", searchingToWaiting, -1, 0, 1},
		{"waitingToSearching", waitingToSearching, 1, 0, -1},
		{"S1 with a unit", one<<20 + minusSearching, -1, 1, 0},
		{"S5 taking a unit", minusSleeping + one, 1, -1, 0},
	}
	fits := func(v int) bool { return v >= 0 && v <= countMask }
	for _, s := range edges {
		for _, l := range edges {
			for _, w := range edges {
				c := encodeCtl(s, l, w)
				if int(searchingOf(c)) != s || int(sleepingOf(c)) != l || int(waitingOf(c)) != w {
					t.Fatalf("%#x reads %d/%d/%d, want %d/%d/%d", c, searchingOf(c), sleepingOf(c), waitingOf(c), s, l, w)
				}
				for _, d := range deltas {
					if !fits(s+d.ds) || !fits(l+d.dl) || !fits(w+d.dw) {
						continue
					}
					if got, want := c+d.d, encodeCtl(s+d.ds, l+d.dl, w+d.dw); got != want {
						t.Fatalf("%#x + %s = %#x, want %#x", c, d.name, got, want)
					}
				}
			}
		}
	}
}

// TestCtlRampWakes compares rampWakes with S4's rule for every count of
// searchers and sleepers on pools of up to 64 workers, and checks what
// sleep.md promises of it: at most two, never more than sleep, and at
// least one when the last searcher stops while somebody sleeps.
func TestCtlRampWakes(t *testing.T) {
	for n := 1; n <= 64; n++ {
		for l := 0; l <= n; l++ {
			for s := 0; s+l <= n; s++ {
				for wt := 0; s+wt+l <= n; wt += max(1, n/4) {
					got := rampWakes(encodeCtl(s, l, wt), uint32(n))
					if want := modelRampWakes(s+wt, l, n); got != want {
						t.Fatalf("n=%d searching %d waiting %d sleeping %d: rampWakes %d, model %d", n, s, wt, l, got, want)
					}
					if got > 2 || got > l || (s+wt == 0 && l > 0 && got == 0) {
						t.Fatalf("n=%d searching %d waiting %d sleeping %d: rampWakes %d", n, s, wt, l, got)
					}
				}
			}
		}
	}
}
