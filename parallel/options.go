package parallel

import (
	"context"
	"fmt"
	"strings"
)

// Option configures a parallel call. Every call documents the options it
// takes (see the table in the package documentation); one that it cannot
// honour makes the call panic, naming the option, rather than being
// silently ignored.
type Option func(*config)

type config struct {
	grain int             // minimum number of iterations per task; 0 means the default
	ctx   context.Context // nil: the call is bound to no context
	stop  *StopFlag       // nil: the call makes its own
	det   bool            // deterministic reduction
	body  *bodyContext    // WithContext's: the context the call gives its bodies
	given opt             // the options given, to check them against the call's
}

// opt names the kinds of option, as a set.
type opt uint8

const (
	optGrain opt = 1 << iota
	optContext
	optStop
	optDeterministic
)

// The sets of options the calls take.
const (
	optsLoop   = optGrain | optContext | optStop // loops, Map, Scan, Filter, search, the Seq calls
	optsReduce = optsLoop | optDeterministic     // Reduce and the aggregates built on it
	optsSort   = optContext | optStop            // the sorts
)

func (o opt) String() string {
	var names []string
	for _, n := range []struct {
		o    opt
		name string
	}{{optGrain, "Grain"}, {optContext, "Context"}, {optStop, "Stop"}, {optDeterministic, "Deterministic"}} {
		if o&n.o != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ", ")
}

// parse returns the configuration opts make for the call named call,
// which takes the options in accepts, and panics, naming the option, if
// one is not among them.
func parse(call string, accepts opt, opts []Option) config {
	if len(opts) == 0 {
		return config{}
	}
	return *parseOpts(call, accepts, opts)
}

// parseOpts is parse for a call with options: the options' functions
// write to a config on the heap, which only a call with options pays for.
// The loops use it directly, so that a call without options copies no
// config at all.
func parseOpts(call string, accepts opt, opts []Option) *config {
	c := new(config)
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if bad := c.given &^ accepts; bad != 0 {
		panic(fmt.Sprintf("parallel: %s does not take the %s option (it takes %s; see the table in the package documentation)", call, bad, accepts))
	}
	if c.body != nil && !c.body.used.CompareAndSwap(false, true) {
		panic(fmt.Sprintf("parallel: %s given a WithContext option that another call has used: make one per call, as errgroup.WithContext makes one per group", call))
	}
	return c
}

// Grain sets the minimum number of iterations a task handles: pieces of
// the range are never split below n. Use it when iterations are so cheap
// that the default splits more than it should, or to bound how many tasks
// a call creates. A grain of 0 or less means the default.
//
// Grain applies to For, ForRange, Reduce, Map, Scan, Filter, the
// aggregates (Sum, Min, Max, MinFunc, MaxFunc, CountFunc), IndexFunc,
// ContainsFunc and the Err forms (the minimum piece length); to
// Deterministic reductions (pieces are cut in halves while they are at
// least 2n long); and to ForSeq, ForSeqErr and MapSeq, where n is the
// number of items per batch. The sorts do not take it (they panic).
//
// By default a loop that runs on a worker splits lazily: it runs its range
// as a plain loop and splits off half of what remains only when another
// worker of the pool is idle, so a loop nested in a loop that keeps every
// worker busy costs about what the plain loop costs, and an idle worker is
// handed work within a few dozen iterations. Once one of its bodies has
// blocked in a blocking section (pool.Blocking), a loop splits what
// remains eagerly instead, down to the grain, whatever its options, so
// that the bodies that block after it wait together (see For).
func Grain(n int) Option {
	return func(c *config) {
		c.given |= optGrain
		if n > 0 {
			c.grain = n
		} else {
			c.grain = 0
		}
	}
}

// Context binds a call to ctx, without changing how the call splits its
// work (WithContext also splits it eagerly, a task per item): once ctx is
// done, pieces of work that have not started are skipped, For and ForErr
// stop within a few dozen iterations, ForSeq stops pulling its sequence,
// and the call returns once the pieces that were running have ended. A
// call whose ctx is already done runs nothing.
//
// The Err forms (ForErr, ForRangeErr, MapErr, ReduceErr, ForSeqErr) then
// return context.Cause(ctx), unless a body failed first; but if every
// piece of work completed without error, they return nil, whatever ctx
// did meanwhile (the rule errgroup's Wait follows: it reports the work,
// not the context). The other calls return normally with part of the work
// not done, each as its documentation says: check ctx.Err() afterwards.
//
// Context applies to every call that takes options (see the table in the
// package documentation). The context is watched through
// context.AfterFunc and a non-blocking look at ctx.Done() between pieces
// (and every few dozen iterations of For), never through ctx.Err() per
// iteration. Bodies that run long can poll the call's StopFlag (see Stop),
// which the end of ctx sets, or use WithContext to get a context of their
// own. Context(nil) panics, and so does a call given two contexts.
func Context(ctx context.Context) Option {
	if ctx == nil {
		panic("parallel: Context(nil); use context.Background() for no context")
	}
	return contextOption(ctx, nil)
}

// Stop makes f the call's stop flag: f.Stopped() reports, with a single
// atomic load, whether the call is stopping (a body returned an error,
// panicked, or the call's context ended), and f.Stop() stops the call
// from inside or outside it, as a break: pieces not started are skipped
// and the Err forms return nil if nothing failed. A panic in any function
// the call was given sets f before the call panics, also when the call
// runs as one piece (on one worker, or a range too small to split).
//
// Stop applies to every call that Context applies to. A flag may be
// shared by several calls, nested ones for instance: stopping it stops
// all of them. A flag cannot be cleared, and a call given a flag that is
// already stopped runs nothing. Stop(nil) panics.
func Stop(f *StopFlag) Option {
	if f == nil {
		panic("parallel: Stop(nil)")
	}
	return func(c *config) {
		c.given |= optStop
		c.stop = f
	}
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
// Deterministic applies to Reduce and ReduceErr and to the calls built on
// Reduce: Sum, Min, Max, MinFunc, MaxFunc and CountFunc. Other calls
// panic when given it. It costs a task per piece even where a lazy split
// would have made fewer.
func Deterministic() Option {
	return func(c *config) {
		c.given |= optDeterministic
		c.det = true
	}
}

// detGrain is the default grain of Deterministic: pieces of 2048 to 4095
// float64 additions take a microsecond or two, far above the cost of the
// task that runs them, and it must not depend on the pool.
const detGrain = 2048
