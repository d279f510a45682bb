package sched

import "unsafe"

// Asides: in builds with debug checks (the fjdebug tag or the race
// detector: debug_on.go), fj perturbs the schedule of a pool of one worker
// so that a *Worker captured from an enclosing task is caught there, as
// the race detector perturbs the Go scheduler to surface races (debug.go
// states the checks, stall.md X7 the protocol).
//
// The misuse check compares the calling goroutine with w's holder. On two
// workers a captured w is caught when a piece is stolen: it runs on another
// goroutine, with another *Worker. On one worker (GOMAXPROCS=1, or
// pool.WithWorkers(1)) nothing is stolen: a loop runs its bodies on its
// caller's worker and goroutine, a join takes its second half back, and
// the captured w is the body's own, so the check passes and the program
// ships its bug. So in those builds, on a pool of one worker, the first
// loop and the first other decision below of each main-loop task, and
// one in asideEvery after them, run the piece on a stand-in instead: a
// spare slot's Worker, on a carrier goroutine of its own, while the
// joiner waits for it as for a stolen half (its carrier parks, and the
// worker's next carrier runs other tasks). The body then receives the
// stand-in, and a captured w, held by the joiner's worker's carriers,
// fails the check.
//
//   - a parallel loop (For, ForErr, Map, Reduce, ...) run on a worker:
//     the whole loop (AsideDue and RunAside, from package parallel);
//   - a forked job taken back by its join (Join, JoinArgs, JoinAll,
//     JoinReduce, Task.Join, Future.Join: takeBack, join.go);
//   - a task block's task taken back by the block's wait (taskblock's
//     Run and Go bodies; takeBackUntil).
//
// Pools of more than one worker are left alone: their steals move pieces
// to other goroutines and workers already, and tests that spin until a
// piece is stolen must not find their worker parked meanwhile.
//
// The perturbation is meant to be invisible to the pool's counters: the
// stand-in's counters add to its worker's (Stats, as a spare's do), the
// piece is counted executed once as it would have been inline (a loop,
// which made no task, not at all), and the joiner's wait is not counted
// as a park. A stand-in is not counted as a spare (Stats.Spares,
// SparesStarted) and no worker steals from it (unless a real spare is
// live): it runs what its piece forks itself, so a test counting steals on
// one worker still reads none (TestAsidesInvisibleToStats). What it cannot
// hide: while the joiner waits, the worker runs its other queued tasks (as
// a stolen join lets it), so the joins of those wait for them and park
// (Parks grows), sleeps and wake-ups follow the waits, and a one-worker
// test that relies on the tasks' order, or counts goroutines or
// allocations, turns asides off (SetAsides). Plain builds
// compile none of it: every call sits behind the constant debugChecks.

// DebugChecks reports whether the build has debug checks (debug_on.go):
// package parallel calls Aside only then, so that plain builds make no
// closure for it.
const DebugChecks = debugChecks

// asideEvery is how often, after the first of a task, a decision runs its
// piece aside: often enough to vary a long test's schedule, rarely
// enough that a race build's fork-heavy test does not pay a goroutine
// switch per join.
const asideEvery = 256

// asideDue reports whether the next decision of the task running on w
// goes aside: a loop's (loop), or a take-back's. The first loop of each
// task goes aside, and so does the first take-back, and one decision in
// asideEvery after them: a task that joins and then loops has both
// checked. It counts in w.checks, which the fork path uses only in builds
// without debug checks (debug.go) and the main loop resets per task
// (runTask): the decisions in its low 15 bits, and asideLoopDone once a
// loop of the task was due. Only the goroutine holding w calls it.
func (w *Worker) asideDue(loop bool) bool {
	if !debugChecks || w.pool.noAside || len(w.pool.workers) != 1 {
		return false
	}
	if loop && w.checks&asideLoopDone == 0 {
		w.checks |= asideLoopDone
		return true
	}
	n := w.checks&^asideLoopDone + 1
	if n == asideLoopDone {
		n = 1 // wrapped: the flag's bit is not the count's
	}
	w.checks = w.checks&asideLoopDone | n
	return n == 1 || n%asideEvery == 0
}

// asideLoopDone is the bit of Worker.checks that says a loop of the task
// has gone aside (asideDue).
const asideLoopDone = 1 << 15

// asideSpareTask is what runTask sets w.checks to for a spare's task: its
// first loop and first take-back are done, so that only samples go aside
// and stand-ins do not chain.
const asideSpareTask = asideLoopDone | 1

// aside runs t, a task that w's holder owns and nobody has started, on a
// stand-in (X7) if one is due and free, and reports whether it did, once
// e (t's completion) is set: it waits as for a stolen half, without
// counting a park. On false the caller runs t itself, as before. Only the
// goroutine holding w calls it.
func (w *Worker) aside(t *task, e Event) bool {
	// A spilled task is claimed already, by the take-back: the
	// stand-in's execute would skip it.
	return debugChecks && !t.spilled.Load() && w.asideDue(false) && w.runAside(t, e)
}

// runAside is aside once the decision is made: it starts the stand-in and
// waits for e, or reports false if no stand-in is free.
func (w *Worker) runAside(t *task, e Event) bool {
	if w.pool.startAside(w, t) == nil {
		return false
	}
	w.wait(e, false)
	return true
}

// startAside is X7's start: a free spare slot of w's worker becomes a
// stand-in that runs t first, on a carrier of its own. It returns nil when
// the pool is closing or the slots are all live.
func (p *Pool) startAside(w *Worker, t *task) *remote {
	// Not stealable: no worker steals from it (X7).
	s, _ := p.startSpare(w.id, w.index, true, func(s *remote) {
		s.asSpare.first = t // before the go statement, as principal
	})
	return s
}

// asideExec is aside for t, a task that takeBackUntil popped and would
// execute: a task with no latch of its own (a task block's), run on the
// stand-in inside a job that has one, so that the caller waits for it
// before it takes back the next, as it would inline. t reports its own
// outcome (a group task records its panic in its group): the wrapper's is
// dropped.
func (w *Worker) asideExec(t *task) bool {
	if t.spilled.Load() || !w.asideDue(false) {
		return false
	}
	j := &asideTask{t: t}
	j.bind(j)
	j.forker = w
	return w.runAside(&j.task, &j.done)
}

// asideTask runs a task on a stand-in for asideExec.
type asideTask struct {
	job
	t *task
}

func (j *asideTask) Run(w *Worker) {
	w.counts[countExecuted]-- // the wrapper; execute counts t
	j.complete(w, func() { w.execute(j.t) })
}

// SetAsides turns the asides of debug builds on (the default) or off for
// p; it must be called before p runs anything. Tests that assert which
// worker ran what, or on which goroutine, turn them off.
func (p *Pool) SetAsides(on bool) { p.noAside = !on }

// asideRun is a piece run aside by Aside: f on the stand-in, its result
// and panic for the caller.
type asideRun[W, R any] struct {
	job
	f   func(*W) R
	res R
}

func (j *asideRun[W, R]) Run(w *Worker) {
	// Inline, the piece was no task: the stand-in does not count it.
	w.counts[countExecuted]--
	j.complete(w, func() { j.res = j.f((*W)(unsafe.Pointer(w))) })
}

// AsideDue reports whether a loop that the task running on pw starts now
// goes aside (X7): then the caller passes it to RunAside. Package
// parallel asks it before a loop; plain builds never call it
// (DebugChecks). Only the goroutine holding pw's worker may call it; on
// another, it reports false, and the caller's own check panics, with its
// message.
func AsideDue[W any](pw *W) bool {
	w := (*Worker)(unsafe.Pointer(pw))
	return debugChecks && w.held() && w.asideDue(true)
}

// RunAside runs f on a stand-in of pw's worker and returns its result and
// true, once AsideDue said so; it returns false, having done nothing, if
// no stand-in is free, and the caller runs the piece itself. f's panic is
// re-raised here, as a stolen half's is by a join.
func RunAside[W, R any](pw *W, f func(*W) R) (r R, ok bool) {
	w := (*Worker)(unsafe.Pointer(pw))
	j := &asideRun[W, R]{f: f}
	j.bind(j)
	j.forker = w
	j.scope = w.scope // the Region it would have run in here (region.go)
	if !w.runAside(&j.task, &j.done) {
		return r, false
	}
	if p := j.panic; p != nil {
		panic(p.Err)
	}
	return j.res, true
}
