package parallel

import (
	"context"
	"sync/atomic"
)

// WithContext returns an Option that binds a call to parent as
// Context(parent) does and, unlike Context, splits the call eagerly, a
// task per Grain items (one by default), as errgroup runs a goroutine per
// item; and a context, derived from parent, for the call's bodies to use:
// the call cancels ctx at its first error, when its stop flag is set
// (Stop, a panic), and when it returns; ctx also ends with parent. It is
// errgroup.WithContext for a parallel call:
//
//	opt, ctx := parallel.WithContext(parent)
//	err := parallel.ForErr(p, 0, len(urls), func(w *pool.Worker, i int) error {
//		return fetch(ctx, urls[i]) // returns early once another fetch failed
//	}, opt)
//
// Without it, running bodies are never told that the call is stopping
// (unless they poll a StopFlag): a body blocked in I/O with the caller's
// context runs to its end after another body has failed.
//
// Bodies that wait on ctx are expected to wait, as errgroup's goroutines
// do, and may wait for one another (for the item whose failure cancels
// ctx), so a call given WithContext splits as errgroup runs, from the
// start: eagerly, a task per Grain items (one by default), rather than
// lazily; ForSeq, ForSeqErr and MapSeq pull a batch of Grain items (one
// by default) per task, and start every item they pull however many wait.
// A body that waits in a blocking section (pool.Blocking) then lets its
// worker start the next item, and the items are in flight together (all
// of them, unless the pool limits sections: pool.WithMaxBlocking), from
// the first. (A loop given Context, or no option, splits the same way
// once one of its bodies has blocked in a section, see For: only the
// bodies before that wait one piece at a time. A barrier, bodies that
// wait for a later item, needs the split from the start: WithContext.)
// It costs a task per item even where bodies never wait.
//
// The call's result follows errgroup's rule: an Err form returns the first
// error a body returned, or, if parent ended first and some work was
// skipped or failed, context.Cause(parent) (a body that returns ctx.Err()
// after parent ended has not failed first); if every piece of work
// completed without error it returns nil, whatever parent did meanwhile.
// The bodies' ctx is always cancelled by then (the call cancels it when
// it returns, as Wait does for an errgroup), and an error the call
// returns is context.Cause(ctx): the first error is recorded and ctx
// cancelled with it in one step, so of two bodies failing at once the
// one whose error is returned is the one ctx reports. The exception is
// a stop of the call's flag before the error (Stop, a break, or the
// failure of another call sharing the flag): it cancelled ctx first,
// with context.Canceled as the cause.
//
// The option is for one call: a second call given it panics, as does a
// call given it beside another Context or WithContext option. Every call
// uses its options up when it starts, whatever its input (an empty slice
// included), and cancels ctx when it returns. An option that no call
// ever uses leaves ctx to end with parent. WithContext(nil) panics.
func WithContext(parent context.Context) (Option, context.Context) {
	if parent == nil {
		panic("parallel: WithContext(nil); use context.Background() for no context")
	}
	ctx, cancel := context.WithCancelCause(parent)
	b := &bodyContext{cancel: cancel}
	return contextOption(parent, b), ctx
}

// contextOption is the Option of Context (body nil) and WithContext: it
// sets the call's context, once.
func contextOption(ctx context.Context, body *bodyContext) Option {
	return func(c *config) {
		if c.ctx != nil {
			panic("parallel: two Context or WithContext options in one call")
		}
		c.given |= optContext
		c.ctx, c.body = ctx, body
	}
}

// bodyContext is the state of a WithContext option: the cancel function of
// the bodies' context, and whether a call has taken the option.
type bodyContext struct {
	cancel context.CancelCauseFunc
	used   atomic.Bool
}
