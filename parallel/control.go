package parallel

import (
	"context"
	"sync"
	"sync/atomic"
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
}

// Stopped reports whether the flag has been set: a body that runs long can
// call it (one atomic load) and return early when it reports true.
func (f *StopFlag) Stopped() bool { return f.f.Load() }

// Stop sets the flag. It may be called any number of times, from any
// goroutine.
func (f *StopFlag) Stop() {
	if !f.f.Load() { // do not dirty the shared line on every call
		f.f.Store(true)
	}
}

// control is what the pieces of one call share: the stop flag, the first
// error and the context.
type control struct {
	flag *StopFlag
	done <-chan struct{} // ctx.Done(), or nil for no context
	ctx  context.Context
	// err is the first error, nil while there is none. It is written
	// under mu, not with an atomic pointer: that would allocate, and a
	// failing body must stop the others before anything that can take
	// time (see fail).
	mu  sync.Mutex
	err error
	// cut is set when some of the call's work was skipped or cut short
	// because the call was stopping: the call did not complete.
	cut atomic.Bool
	// end unregisters the context.AfterFunc that sets flag.
	end func() bool
}

// newControl prepares a call's control from its options. The caller must
// defer unwatch, and call finish to learn the call's error.
func newControl(c *config) *control {
	ctl := &control{flag: c.stop}
	if ctl.flag == nil {
		ctl.flag = new(StopFlag)
	}
	if ctx := c.ctx; ctx != nil {
		if done := ctx.Done(); done != nil {
			ctl.ctx, ctl.done = ctx, done
			if ctx.Err() != nil {
				ctl.fail(context.Cause(ctx))
			} else {
				// The flag, not the context, is what bodies and
				// iterations poll: set it as soon as ctx ends, from
				// whatever goroutine ends it.
				ctl.end = context.AfterFunc(ctx, func() { ctl.fail(context.Cause(ctx)) })
			}
		}
	}
	return ctl
}

// unwatch unregisters the context watch.
func (ctl *control) unwatch() {
	if ctl.end != nil {
		ctl.end()
	}
}

// finish returns the error the Err forms report, once the call's work has
// ended: the first error, or the context's cause if the context is done by
// now, even if every piece had already run (a caller who cancelled must
// not take a nil for "all done before the cancel").
func (ctl *control) finish() error {
	ctl.stopped()
	return ctl.result()
}

// fail stops the call, and records err if it is the call's first error.
// The flag comes first, so that the other workers stop before their next
// iteration even if recording takes a while.
func (ctl *control) fail(err error) {
	ctl.flag.Stop()
	ctl.mu.Lock()
	if ctl.err == nil {
		ctl.err = err
	}
	ctl.mu.Unlock()
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
			ctl.fail(context.Cause(ctl.ctx))
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

// result is the error the Err forms return: the first error, or nil.
func (ctl *control) result() error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	return ctl.err
}
