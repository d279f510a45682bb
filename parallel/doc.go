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
// Loops split their range adaptively (see Grain): a few pieces per worker,
// more where work turns out to be uneven. Comparators and combine functions
// take no worker; they should be cheap and must not block.
//
// A panic in a body, chunk, comparator or combine function is re-raised in
// the caller as a *pool.PanicError carrying the original value and stack,
// after the pieces that were running have finished.
package parallel
