// Package taskblock provides fully strict scopes of parallel tasks, after
// C++'s define_task_block (N4411): a block's body starts tasks with Run,
// the tasks may start more tasks in the same block with Run too (each goes
// on the deque of the worker that runs the caller, found from the calling
// goroutine in nanoseconds, so that tasks starting tasks run depth first),
// and Define returns only when all of them have finished.
//
//	// The N4411 tree walk: the sum over a binary tree, in parallel.
//	func sum(w *pool.Worker, n *Node) int {
//		if n == nil {
//			return 0
//		}
//		var left, right int
//		taskblock.Define(w, func(b *taskblock.Block) {
//			b.Run(func(w *pool.Worker) { left = sum(w, n.Left) })
//			b.Run(func(w *pool.Worker) { right = sum(w, n.Right) })
//		})
//		return n.Value + left + right
//	}
//
// The guarantee that nothing started in a block outlives it is what makes
// it safe for tasks to write into the enclosing function's variables, as
// above: they are read only after Define has returned.
//
// Waiting at the end of a block, or at b.Wait, never blocks a worker: the
// worker runs the block's (and other) tasks until the block is done.
//
// A panic in a task cancels the block: tasks that have not started are
// skipped, running ones finish, and then Define panics once with Panics,
// which carries every captured panic with its stack. DefineErr and b.Go
// are the same for tasks that return errors, in the manner of errgroup:
// the first error cancels the block and is returned.
//
// A block costs a little over twice the forks it makes: a Define from a task
// whose tasks its own worker takes back allocates nothing (its Block is an
// 8-byte handle from a batch; its state serves the worker's next Define)
// and pays no atomic operation per task; the measured figures beside
// Spawn + Join are in docs/performance.md.
//
// Misuse panics instead of hanging, in every build: Wait from a task of
// its own block (it would wait for itself), Run or Go from a goroutine
// that is not running a task of the block's pool (a goroutine you
// started), RunFrom with a worker the caller does not hold, and any use
// after Define returned.
package taskblock
