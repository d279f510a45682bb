package sched

// Loop hints (job.go, E3): when a loop running on a worker splits what
// remains of its range, and how nested loops tell it.

// ShouldSplit reports whether a loop running a range sequentially on w
// should split what remains of it before its next step (E3); more says
// whether more than one step remains. It does when another worker wants
// work, or when w's deque exposes nothing a thief could take and more
// than one step remains (a single step is run whole whoever comes: it is
// as long as the loop's own split would leave it, and splitting it would
// only cost a task); and w holds no private task, and the pool has
// another worker to take the half. A private task left unexposed (by a
// steal of the last published one) is published instead (E2): it is
// older than the loop, and usually larger than half of it. While w's
// deque exposes a task, a loop does not split, so a loop nested in a step
// of a loop (or a join) that exposes its rest costs what the plain loop
// costs, and so does a loop of one step on a busy pool (a Reduce of a
// few elements: no task, no allocation).
//
// Loops nested in a step of an enclosing loop (LoopStep) split less, to
// keep small nested loops cheap: not at all while the enclosing loop has
// steps left (it exposes its own rest before each step, a larger piece,
// and splits for an idle worker at its next step), and in its last step
// only while another worker wants work, not merely because nothing is
// exposed. Without that, the rows of a busy outer loop would each split,
// a fork and a join per row, whenever a steal left their worker exposing
// nothing. (In the last step, an idle worker may still take halves of
// rows, one after another: the outer loop has nothing larger left, and a
// loop of one outer iteration must split its inner loop.) Only the
// goroutine holding w may call it.
func (w *Worker) ShouldSplit(more bool) bool {
	w.mustOwn()
	if w.dq.Private() != 0 {
		if w.publishDue() {
			w.publish()
		}
		return false
	}
	if w.dq.Exposed() || len(w.pool.workers) == 1 {
		return false
	}
	switch w.loopNest {
	case notNested:
		return more || w.pool.wantsWork()
	case nestedLast:
		return w.pool.wantsWork()
	}
	return false
}

// The values of Worker.loopNest: where the code running on w stands
// relative to the loops that run on it (ShouldSplit).
const (
	notNested  = iota // in no step of a loop
	nestedLast        // in the last step of every enclosing loop
	nestedMore        // in a step of a loop that has steps after it
)

// LoopStep tells w that a loop on it is about to run a step, with more
// steps of that loop after it or not, and returns what to pass to
// LoopStepDone when the step has run: loops nested in the step then split
// less (ShouldSplit). The main loop clears the mark before each task, so a
// task parked mid-step leaves no stale mark for long; it is a hint, never
// a condition of correctness. Only the goroutine holding w may call it.
func (w *Worker) LoopStep(more bool) (outer uint8) {
	w.mustOwn()
	outer = w.loopNest
	mark := uint8(nestedLast)
	if more {
		mark = nestedMore
	}
	w.loopNest = max(outer, mark)
	raceHandOff(w) // stall.md, Y6: the step's bodies run next
	return outer
}

// WillNotSplit reports whether ShouldSplit answers false for as long as
// the caller's loop runs: the loop is nested in a step of an enclosing
// loop that has steps left (a mark that the loop's own steps do not
// lower), or the pool has one worker. Such a loop may run its range in
// one step. Only the goroutine holding w may call it.
func (w *Worker) WillNotSplit() bool { return w.loopNest == nestedMore || len(w.pool.workers) == 1 }

// RunsInOneStep reports whether a loop of n iterations, whose steps are
// at least short long, would run its range in one step if it started on
// w now: it would when it never splits (WillNotSplit, written out so that
// this inlines), and when n is at most short and ShouldSplit says no
// before the step. The loop may then skip its setup and run the range as
// one call. Only the goroutine holding w may call it.
func (w *Worker) RunsInOneStep(n, short uint64) bool {
	return w.loopNest == nestedMore || len(w.pool.workers) == 1 || n <= short && !w.ShouldSplit(false)
}

// LoopMark returns w's loop mark, for LoopStepDone to restore when a
// panic unwinds steps that did not. Only the goroutine holding w may call
// it.
func (w *Worker) LoopMark() uint8 { return w.loopNest }

// LoopStepDone ends the step that LoopStep began: outer is what LoopStep
// returned. Only the goroutine holding w may call it.
func (w *Worker) LoopStepDone(outer uint8) {
	w.mustOwn()
	w.loopNest = outer
	raceHandOff(w) // stall.md, Y6
}
