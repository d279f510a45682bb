// Package parallel provides parallel loops, reductions, scans and sorts on
// a fj pool: the algorithms most programs want, built on forkjoin.
//
//	p := pool.New()
//	defer p.Close()
//	parallel.For(p, 0, len(img), func(w *pool.Worker, y int) { render(img[y]) })
//	total := parallel.Reduce(p, 0, len(xs), 0, sumChunk, add)
//	parallel.Sort(p, xs)
//
// Every function takes a pool.Runner: a *pool.Pool from ordinary code
// (the call blocks until the work is done) or, inside a task, the task's
// *pool.Worker, so that nested calls fork onto the current worker instead
// of blocking it. Loop bodies and chunk functions receive the worker they
// run on for the same reason:
//
//	parallel.For(p, 0, len(rows), func(w *pool.Worker, i int) {
//		parallel.Sort(w, rows[i]) // nested: forks onto w
//	})
//
// Loops split their range lazily (see Grain): a loop running on a worker
// splits off half of what remains only when another worker is idle, so a
// small loop nested in a busy one costs about what a plain loop costs.
// Once a body has blocked in a blocking section (pool.Blocking), the loop
// splits the rest eagerly, a task per item, so that bodies that block
// wait together (see For), whatever the call's options.
// Comparators and combine functions take no worker; they should be cheap
// and must not block.
//
// A panic in a body, chunk, comparator or combine function is re-raised in
// the caller as a *pool.PanicError carrying the original value and stack,
// after the pieces that were running have finished.
//
// # Errors, cancellation and options
//
// The Err forms stop at the first error and return it, as errgroup's Wait
// does; WithContext gives the bodies a context that the call cancels then,
// as errgroup.WithContext does. Every call that takes options honours each
// option it takes, as this table says, and panics at the call, naming the
// option, when given one it does not take: nothing is silently ignored.
//
//	call                        Grain  Context, Stop, WithContext  Deterministic
//	For, ForRange, Map          yes    stop; check ctx.Err()       panics
//	ForErr, ForRangeErr, MapErr yes    stop; return the cause      panics
//	Reduce                      yes    stop; partial result        yes
//	ReduceErr                   yes    stop; return the cause      yes
//	ForSeq, MapSeq              batch  stop pulling                panics
//	ForSeqErr, MapSeqErr        batch  stop; return the cause      panics
//	Scan                        yes    elements original or final  panics
//	Filter                      yes    nil                         panics
//	Sum, Min, Max, MinFunc,
//	  MaxFunc, CountFunc        yes    of the elements looked at   yes
//	IndexFunc, ContainsFunc     yes    a hit, or -1 / false        panics
//	Sort, SortFunc,
//	  SortStableFunc, SortByKey panics a permutation of the input  panics
//	Do                          (takes no options)
//
// "Stop" means: pieces not started are skipped, running ones end at their
// next look at the call's flag (For looks every few dozen iterations;
// ForErr, MapErr and the Seq calls before every item; the others between
// pieces), and the call returns once they have. Each call's
// documentation gives its result then. An Err form returns the first
// error of a body; if the context ended first and some work was skipped,
// cut short or failed, it returns context.Cause(ctx); if every piece
// completed without error it returns nil, whatever the context did
// meanwhile, and a Stop is a break: nil too.
package parallel
