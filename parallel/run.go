package parallel

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Every entry point starts with enter, before it looks at its other
// arguments' contents (an empty slice, an empty range): a closed pool, a
// nil Runner or a *Worker used where it must not be panics the same way
// whatever the input (pool.Enter decides, as for every fj call, in
// nanoseconds). The worker it returns, or nil, then goes to run.

// enter returns the caller's own worker if the call runs on it (r is a
// *Worker held by the caller, or a *Pool whose task the caller runs), or
// nil if the work must be submitted to r's pool; it panics on a Runner
// that cannot run the call.
func enter(r pool.Runner) *pool.Worker { return pool.Enter(r) }

// run calls f on a worker of r: inline on w, the caller's worker that
// enter returned, or, if w is nil, submitted to r's pool and waited for.
// A panic in f reaches the caller as a *pool.PanicError either way, with
// the call's stop flag set (ctl, the call's control, may be nil: a call
// without one).
func run(r pool.Runner, w *pool.Worker, ctl *control, f func(w *pool.Worker)) {
	returned := false
	defer ctl.stopUnless(&returned)
	runOn(r, w, f)
	returned = true
}

// runOn is run without the flag: the one dispatch (sched.Do) after
// enter's one lookup of the caller.
func runOn(r pool.Runner, w *pool.Worker, f func(w *pool.Worker)) { sched.Do(r, w, f) }

// outside runs f on a worker of r's pool for a caller that holds none
// (enter returned nil): queued, and waited for.
func outside(r pool.Runner, f func(w *pool.Worker)) { sched.Do(r, nil, f) }

// on is enter and run in one, for entry points that have nothing to
// decide before they start.
func on(r pool.Runner, ctl *control, f func(w *pool.Worker)) { run(r, enter(r), ctl, f) }
