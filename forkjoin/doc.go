// Package forkjoin is fork/join parallelism on a pool: fork a function as
// a task, keep working, join it later; or run two functions potentially in
// parallel with Join.
//
// A fork costs nanoseconds, not the microsecond of a goroutine and a
// WaitGroup, so recursive divide-and-conquer code may fork at every
// level:
//
//	func fib(w *pool.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := forkjoin.Join(w,
//			func(w *pool.Worker) int { return fib(w, n-1) },
//			func(w *pool.Worker) int { return fib(w, n-2) })
//		return a + b
//	}
//
//	p := pool.New()
//	defer p.Close()
//	fmt.Println(forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 35) }))
//
// # The forms, from cheapest
//
// JoinArgs(w, f, a, b) runs f(w, a) and f(w, b): no closure, and the job
// that carries b is recycled, so a recursion allocates nothing per fork;
// a fork that no other worker takes costs a few plain loads and stores.
// JoinReduce and JoinAll fork every element of a slice at once (a tree
// walk's children): JoinReduce folds the results and allocates nothing,
// JoinAll returns them. Join(w, fa, fb) takes two closures (one
// allocation, the caller's fb). Fork returns a Future that any task may
// join, any number of times: one allocation too, the caller's closure,
// where the Future does not outlive the function that forked it (one
// more where it does).
//
// While every worker is busy, a fork stays private to its worker; it is
// published for others to steal as soon as a worker is idle, at the
// forker's next fork, join or task boundary. A task that waits for its own
// fork without joining it (spinning on a flag, or blocking on a channel
// the fork writes to) must do so in a blocking section. Without one, a
// blocking wait is caught by the pool's stall watch (pool.StallReport),
// which hands the worker, and the fork, to another goroutine; a spin is
// not: the spinning task
// runs, as far as the pool can tell, and if its fork waits behind it on
// its worker, the program hangs.
//
// # The worker travels
//
// Every function run by fj receives the *pool.Worker it runs on, and every
// fork and join takes one. Go has no goroutine-local storage, so this is how
// a task says "fork onto my worker". Pass it down; never keep it after the
// function returns or hand it to another goroutine.
//
// # Joins never block a worker
//
// Joining a task that another worker is still running does not block the
// worker: the joining task parks, and its worker runs other queued tasks
// meanwhile (its own first, then stolen ones); the task resumes once what
// it joined is done. A pool of any size, even one worker, therefore
// completes any acyclic graph of forks and joins, futures joined by other
// tasks than their forker included.
//
// Join futures in the reverse order of forking when you can: the last fork
// is at the bottom of the worker's deque, and joining it there costs one
// pop. Any order works; a join that finds other forks on top of its own
// parks until they have run.
//
// # Panics
//
// A panic in a forked task is captured with its stack and raised again,
// as a *pool.PanicError, by Join (Future.Join, Join, or Invoke's caller).
package forkjoin
