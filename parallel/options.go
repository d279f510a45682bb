package parallel

import "context"

// Option configures a parallel call. Each option's documentation says
// which calls it applies to; the others ignore it.
type Option func(*config)

type config struct {
	grain int             // minimum number of iterations per task; 0 means the default
	ctx   context.Context // nil: the call is bound to no context
	stop  *StopFlag       // nil: the call makes its own
	det   bool            // deterministic reduction
}

// Grain sets the minimum number of iterations a task handles: pieces of
// the range are never split below n. Use it when iterations are so cheap
// that the adaptive default splits more than it should, or to bound how
// many tasks a call creates. A grain of 0 or less means the default.
//
// Grain applies to For, ForRange, Reduce, Map, Scan and their Err forms
// (the minimum piece length), to Deterministic reductions (pieces are cut
// in halves while they are at least 2n long), and to ForSeq, ForSeqErr and
// MapSeq, where n is the number of items per batch. Sorts ignore it.
//
// By default the split is adaptive: the range is cut into a few pieces per
// worker, and a piece is split further only when another worker has stolen
// it, which is the sign that workers are idle. Balanced loops therefore
// cost a handful of tasks per worker, and imbalanced ones are split as
// finely as the imbalance requires.
func Grain(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.grain = n
		} else {
			c.grain = 0
		}
	}
}

// Context binds a call to ctx: once ctx is done, pieces of work that have
// not started are skipped, For and ForErr stop within 64 iterations, ForSeq
// stops pulling its sequence, and the call returns once the pieces that
// were running have ended. A call whose ctx is already done runs nothing.
//
// The Err forms (ForErr, ForRangeErr, MapErr, ReduceErr, ForSeqErr) then
// return context.Cause(ctx), unless a body failed first; they do so
// whenever ctx is done by the time the call returns, even if all the work
// had already been done. The other forms
// (For, ForRange, Map, Reduce, ForSeq, MapSeq, Scan) return normally with
// part of the work not done: the caller must check ctx.Err() afterwards.
// Reduce's result is then unspecified (it combines the pieces that ran,
// never a piece that did not), and so are the elements of a Map result
// whose function did not run.
//
// Context applies to every loop-shaped call: For, ForRange, Reduce, Map
// and their Err forms, and ForSeq, ForSeqErr and MapSeq; Scan and the
// sorts ignore it. The context is watched through context.AfterFunc and a
// non-blocking look at ctx.Done() between pieces (and every few dozen
// iterations of For), never through ctx.Err() per iteration. Bodies that
// run long can poll the call's StopFlag (see Stop), which the end of ctx
// sets. Context(nil) panics.
func Context(ctx context.Context) Option {
	if ctx == nil {
		panic("parallel: Context(nil); use context.Background() for no context")
	}
	return func(c *config) { c.ctx = ctx }
}

// Stop makes f the call's stop flag: f.Stopped() reports, with a single
// atomic load, whether the call is stopping (a body returned an error,
// panicked, or the call's context ended), and f.Stop() stops the call
// from inside or outside it, as a break: pieces not started are skipped
// and the Err forms return nil if nothing failed.
//
// Stop applies to every call that Context applies to. A flag may be
// shared by several calls, nested ones for instance: stopping it stops
// all of them. A flag cannot be cleared, and a call given a flag that is
// already stopped runs nothing. Stop(nil) panics.
func Stop(f *StopFlag) Option {
	if f == nil {
		panic("parallel: Stop(nil)")
	}
	return func(c *config) { c.stop = f }
}

// Deterministic makes a reduction split [lo, hi) into the same pieces and
// combine their results along the same tree whatever the number of
// workers and however the work is stolen, so that a floating-point
// reduction gives bit-identical results from run to run and machine to
// machine. The pieces depend only on hi-lo and the grain: [lo, hi) is cut
// in halves (the left half holds the lower half of the length, rounded
// down) as long as a piece holds at least 2*grain iterations, and the two
// halves' results are combined as combine(left, right). The grain defaults
// to 2048 in this mode, whatever the pool.
//
// Deterministic applies to Reduce and ReduceErr (and to the package's
// calls built on Reduce, such as Sum); other calls ignore it. It costs a
// task per piece even where the adaptive split would have made fewer.
func Deterministic() Option {
	return func(c *config) { c.det = true }
}

// detGrain is the default grain of Deterministic: pieces of 2048 to 4095
// float64 additions take a microsecond or two, far above the cost of the
// task that runs them, and it must not depend on the pool.
const detGrain = 2048

func makeConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}
