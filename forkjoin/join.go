package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Join runs fa and fb, potentially in parallel, and returns both results.
// It must be called from a task running on w, with w.
//
// fb is forked onto w's deque, where an idle worker may steal it, and fa
// runs right away on the calling goroutine. When fa returns, Join takes fb
// back if nobody stole it and runs it inline too, so on a busy pool a Join
// costs little more than two function calls. If fb was stolen, Join waits
// for it without blocking w: the calling task parks and w runs other tasks
// until fb has finished (see the pool package documentation, "Waiting").
//
// If fa or fb panics, Join waits until the other has finished (or drops fb
// if it has not started yet), then panics with a *pool.PanicError carrying
// the first panic's value and the stack where it happened.
func Join[A, B any](w *pool.Worker, fa func(w *pool.Worker) A, fb func(w *pool.Worker) B) (a A, b B) {
	if w == nil {
		panic("forkjoin: Join with a nil *pool.Worker")
	}
	if fa == nil || fb == nil {
		panic("forkjoin: Join with a nil function")
	}
	sw := (*sched.Worker)(w)
	// In recursive code the job of the previous Join at this depth is
	// waiting, finished, in the deque slot this one will use; see
	// sched.Reuse. Then the caller's closure is the only allocation.
	j := sched.Reuse[job[B]](sw)
	if j == nil {
		j = &job[B]{}
		j.Task.Init(j)
	}
	j.f = fb
	sw.Spawn(&j.Task)

	pending := true // j may be queued or running somewhere
	returned := false
	defer func() {
		if returned {
			return
		}
		r := recover()
		if pending {
			// fa panicked while fb is still forked. Never leave a task
			// of ours behind: drop fb if it has not started, or wait for
			// it if it has.
			if sw.TakeBack(&j.Task) {
				j.f = nil // never run: drop it, and its captures
				sched.Recycle(sw, &j.Task)
			} else {
				sw.WaitFor(&j.done)
			}
		}
		// r == nil is ambiguous: runtime.Goexit is unwinding, or a
		// panic(nil) under GODEBUG=panicnil=1 was just stopped. Raise a
		// *PanicError either way. For the nil panic, that is its report.
		// During a Goexit, the task's capture (sched.Try) recovers it and
		// the runtime then resumes the Goexit (a recover cannot stop a
		// Goexit), which the task reports as such.
		panic(sched.Recovered(r))
	}()

	a = fa(w)
	if sw.TakeBack(&j.Task) {
		// Not stolen: run it here. j.f is the caller's fb; no Run wrapper,
		// no latch: nobody else can see this job any more.
		// A thief that read j's slot before the Pop fails its CAS without
		// touching j, so j is ours alone again. Recycle it before running
		// fb: the first fork inside fb uses this same slot and reuses j.
		pending = false
		j.f = nil
		sched.Recycle(sw, &j.Task)
		b = fb(w)
	} else {
		sw.WaitFor(&j.done)
		pending = false
		if j.err != nil {
			panic(j.err) // through the deferred function, unchanged
		}
		// The thief's last access to j was the Swap inside done.Set,
		// which we have observed: j is ours alone again.
		b = j.res
		var zero B
		j.res = zero
		j.done.Reset()
		sched.Recycle(sw, &j.Task)
	}
	returned = true
	return a, b
}
