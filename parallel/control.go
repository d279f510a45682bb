package parallel

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/forkjoin/fj/internal/sched"
)

// StopFlag tells the pieces of a parallel call that the call is stopping,
// and lets a body stop it. See Stop for how to attach one to a call. The
// zero value is a flag that is not stopped. A StopFlag must not be copied
// after first use.
type StopFlag struct {
	// The flag is read by every iteration of every worker and written
	// once: keep it off the cache lines of whatever it is allocated next to.
	_ [64]byte
	f atomic.Bool
	_ [63]byte
	// hooks are the calls made with WithContext that use this flag: they
	// cancel their bodies' contexts when the flag is set.
	mu    sched.Lock // fj's own: a holder waiting in it is no stall
	hooks []*bodyContext
}

// Stopped reports whether the flag has been set: a body that runs long can
// call it (one atomic load) and return early when it reports true.
func (f *StopFlag) Stopped() bool { return f.f.Load() }

// Stop sets the flag. It may be called any number of times, from any
// goroutine.
func (f *StopFlag) Stop() {
	if !f.f.Load() { // do not dirty the shared line on every call
		f.f.Store(true)
		f.notify()
	}
}

// notify cancels the bodies' contexts of the calls that use f, once f is
// set. It runs at most once per hook: it takes the list.
func (f *StopFlag) notify() {
	f.mu.Lock()
	hs := f.hooks
	f.hooks = nil
	f.mu.Unlock()
	for _, h := range hs {
		h.cancel(nil)
	}
}

// hook makes setting f cancel b's context: now, if f is set already.
// A setter stores the flag before it takes mu, and hook looks at the
// flag under mu: either it sees the flag set, or the setter's notify
// finds b in the list.
func (f *StopFlag) hook(b *bodyContext) {
	f.mu.Lock()
	if f.f.Load() {
		f.mu.Unlock()
		b.cancel(nil)
		return
	}
	f.hooks = append(f.hooks, b)
	f.mu.Unlock()
}

// unhook removes b from f's list, when its call returns.
func (f *StopFlag) unhook(b *bodyContext) {
	f.mu.Lock()
	if i := slices.Index(f.hooks, b); i >= 0 {
		f.hooks = slices.Delete(f.hooks, i, i+1)
	}
	f.mu.Unlock()
}

// control is what the pieces of one call share: the stop flag, the first
// error, the context, and whether work was cut short. A call makes one
// only when it needs one: when it was given a context or a flag, or, for
// a loop, when it first splits (see loop.share). A loop that runs on its
// caller's worker without splitting has none and allocates nothing.
type control struct {
	own  StopFlag  // the flag of a call given none
	flag *StopFlag // own, or the one given with Stop
	done <-chan struct{}
	ctx  context.Context
	body *bodyContext // WithContext's, or nil
	// end unregisters the context.AfterFunc that sets flag.
	end func() bool

	// cut is set when some of the call's work was skipped or cut short
	// because the call was stopping: the call did not complete.
	cut atomic.Bool

	// The outcome, written under mu rather than with an atomic pointer:
	// that would allocate, and a failing body must stop the others before
	// anything that can take time (see fail).
	mu       sched.Lock // fj's own: a holder waiting in it is no stall
	err      error      // the first error of a body
	failed   bool       // some body failed (err may be unset: see ctxFirst)
	ctxFirst bool       // the context ended before any body failed and before any Stop
}

// controlled starts a call that runs loops of its own (Filter, Scan): it
// returns the call's configuration and the control made from it, which
// the caller must finish.
func controlled(call string, opts []Option) (config, *control) {
	c := parse(call, optsLoop, opts)
	return c, newControl(&c)
}

// newControl prepares a call's control from its options. The caller must
// call finish (which unwatches the context) once the call's work has
// ended.
func newControl(c *config) *control {
	ctl := &control{flag: c.stop, body: c.body}
	if ctl.flag == nil {
		ctl.flag = &ctl.own
	}
	if ctl.body != nil {
		ctl.flag.hook(ctl.body)
	}
	if ctx := c.ctx; ctx != nil {
		if done := ctx.Done(); done != nil {
			ctl.ctx, ctl.done = ctx, done
			if ctx.Err() != nil {
				ctl.ctxEnded()
				ctl.cut.Store(true) // the call runs nothing, because of ctx
			} else {
				// The flag, not the context, is what bodies and
				// iterations poll: set it as soon as ctx ends, from
				// whatever goroutine ends it.
				ctl.end = context.AfterFunc(ctx, ctl.ctxEnded)
			}
		}
	}
	return ctl
}

// ctxEnded records that the context ended, unless the call was already
// stopping for another reason (an error, a panic, Stop), and stops it.
// The bodies' context, derived from ctx, ends with it; it is cancelled
// here too, with ctx's cause, before the flag's hooks cancel it with
// none: the parent's cancel may start this AfterFunc before it reaches
// its children, and a context that is not the context package's own
// tells its children from a goroutine of its own.
func (ctl *control) ctxEnded() {
	if ctl.flag.f.Load() {
		return
	}
	ctl.mu.Lock()
	if !ctl.failed {
		ctl.ctxFirst = true
		if ctl.body != nil {
			ctl.body.cancel(context.Cause(ctl.ctx))
		}
	}
	ctl.mu.Unlock()
	ctl.flag.Stop()
}

// fail stops the call, and records err if it is the call's first error.
// The flag comes first, so that the other workers stop before their next
// iteration even if what follows takes a while.
//
// The first error is recorded and the bodies' context cancelled with it
// in one step, under mu, as errgroup's errOnce does: of two bodies that
// fail at once, the one whose error the call returns is the one whose
// error is the context's cause (a cancel after the lock could let the
// second failure's cancel come first). A failure seen after the context
// ended is not the first: a body that waited on its context and returns
// ctx.Err() (context.Canceled) when the parent ends must not be taken
// for a failure of its own when the AfterFunc that reports the end
// (ctxEnded) has not run yet. The look at done is a non-blocking
// receive, on the failure path only.
func (ctl *control) fail(err error) {
	first := !ctl.flag.f.Load()
	if first {
		ctl.flag.f.Store(true)
	}
	ctl.mu.Lock()
	if !ctl.failed && !ctl.ctxFirst && ctl.done != nil {
		select {
		case <-ctl.done:
			ctl.ctxFirst = true
		default:
		}
	}
	ctl.failed = true
	if ctl.err == nil && !ctl.ctxFirst {
		ctl.err = err
		if ctl.body != nil {
			ctl.body.cancel(err)
		}
	}
	ctl.mu.Unlock()
	if first {
		ctl.flag.notify() // other calls sharing the flag
	}
}

// panicked sets the call's stop flag, if it has a control (a nil ctl is
// a call without options, whose flag nobody can see), when a panic is
// about to leave the call: Stop's doc promises that the flag reports a
// panic, and a call sharing the flag must stop. Pieces that split off
// set it themselves (runPiece, a Seq call's batches); this is for the
// piece a call runs on its caller's goroutine or worker, which is not a
// split-off piece: the whole call, when it runs as one piece.
func (ctl *control) panicked() {
	if ctl != nil {
		ctl.flag.Stop()
	}
}

// stopUnless is panicked for a deferred call: it sets the flag unless
// *returned, which the caller sets once its work has returned normally
// (a panic or a runtime.Goexit skips that).
func (ctl *control) stopUnless(returned *bool) {
	if !*returned {
		ctl.panicked()
	}
}

// stopped reports whether pieces should stop. Besides the flag it looks
// at ctx.Done() (a non-blocking receive: no lock, no allocation), for the
// case where the context was cancelled from a worker and the AfterFunc
// goroutine has not had a processor to run on yet.
func (ctl *control) stopped() bool {
	if ctl.flag.f.Load() {
		return true
	}
	if ctl.done != nil {
		select {
		case <-ctl.done:
			ctl.ctxEnded()
			return true
		default:
		}
	}
	return false
}

// skip records that some work was skipped or cut short because the call
// is stopping.
func (ctl *control) skip() {
	if !ctl.cut.Load() { // do not dirty the shared line on every call
		ctl.cut.Store(true)
	}
}

// finish ends the call's watch of its context and returns the error the
// Err forms report, once the call's work has ended (it may be called
// again, with the same result):
//
//   - the first error a body returned, unless the context had ended
//     before it;
//   - context.Cause(ctx) if the context ended first and the call did not
//     complete: some work was skipped, cut short, or failed;
//   - nil otherwise: every piece of work completed without error, whatever
//     the context did meanwhile, or the call was stopped with Stop (a
//     break).
//
// The bodies' context ends here, as errgroup's Wait cancels it, with the
// error returned as its cause: it has that cause already (fail cancels
// it with the first error, and a context that ended first gave it its
// own), unless ctx's end has not reached it yet; then this cancel gives
// it.
func (ctl *control) finish() error {
	if ctl.end != nil {
		ctl.end()
	}
	err := ctl.result()
	if ctl.body != nil {
		ctl.flag.unhook(ctl.body)
		ctl.body.cancel(err)
	}
	return err
}

// result is the error finish returns.
func (ctl *control) result() error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if ctl.ctxFirst {
		if ctl.cut.Load() || ctl.failed {
			return context.Cause(ctl.ctx)
		}
		return nil
	}
	return ctl.err
}
