package pool

import (
	"fmt"

	"github.com/forkjoin/fj/internal/sched"
)

// Blocking runs f, a call that may block (I/O, a lock, a channel
// operation, a sleep, a call on another pool), as a blocking section of
// the calling task: while f runs, the task's worker goes on with other
// tasks on another goroutine, as it does while a join waits; when f
// returns, the task waits for its worker to reach a point between two
// tasks and resumes there. A task that blocks without a section holds its
// worker for as long as it blocks, and nothing else runs there: work
// queued behind it waits, and if the task waits for that work (a channel
// it fills, a fork of its own), only the pool's stall watch saves it. The
// watch looks at each worker about every millisecond, whatever the others
// do, and about a millisecond after a worker's task starts to wait while
// work waits for the worker, the pool hands the worker to another
// goroutine, which runs that work; the block is reported once, a
// threshold later (see StallReport; 50 ms by default,
// WithStallThreshold). So a forgotten section costs a millisecond or so
// and a hand-over; a section costs neither.
//
//	parallel.For(w, 0, len(paths), func(w *pool.Worker, i int) {
//		var data []byte
//		pool.Blocking(func() { data, errs[i] = os.ReadFile(paths[i]) })
//		sums[i] = checksum(data)
//	})
//
// (BlockingValue is the same section for a call that returns a value and
// an error: data, err := pool.BlockingValue(func() ([]byte, error) {
// return os.ReadFile(paths[i]) }).)
//
// (A parallel loop has a few pieces per worker, each running its
// iterations in order, until a body blocks in a section: then it splits
// the rest a task per item, and the reads after the first are in flight
// together; parallel.For says how. For bodies that wait for one another,
// a barrier, start a task per item from the start: parallel.WithContext
// or a task block's Run.)
//
// Blocking finds the calling task itself (a goroutine id and a table
// lookup per open pool: nanoseconds). Called from a goroutine that is not
// running a task of any pool, or from inside another section, it just
// calls f.
//
// Inside f the goroutine holds no worker: a call on a *Pool made there
// behaves as from outside the pool (it queues its work and waits, and
// panics if the pool is closed), and the task's *Worker must not be used
// until Blocking returns (fj's misuse checks panic, naming the mistake).
// A panic in f, or a runtime.Goexit, unwinds on from Blocking unchanged,
// after the task has its worker back, and reaches the task's joiner as any
// panic of the task would.
//
// A section costs two goroutine switches, under a microsecond, whether f
// blocks or not: cheap beside a system call or a contended lock, and cheap
// enough to wrap a cache lookup that only sometimes waits. Each task in a
// section keeps its goroutine (and stack) while f blocks, as a goroutine
// of errgroup does; by default nothing else limits how many tasks of a
// pool are in sections at once, so every shape that goroutines complete
// (a barrier of any size, a hand-off chain, bodies waiting on a context
// that a later item cancels) completes. WithMaxBlocking sets a limit, as
// errgroup's SetLimit does. Stats counts the tasks in sections.
//
// Close from inside f, of the pool whose task the section belongs to,
// panics, as Close from the task itself does; so do the task's *Worker
// given to any fj call, and Block.Run or Block.Wait of a block whose body
// or task the section belongs to, each with a message that names the
// section. Use them after Blocking returns.
func Blocking(f func()) {
	if f == nil {
		panic("pool: Blocking with a nil function")
	}
	sched.Blocking(f)
}

// BlockingValue is Blocking for a call that returns a value and an error,
// the shape of most blocking calls (a read, a query, a request): it runs
// f as a blocking section of the calling task and returns what f
// returned, so that the caller needs no variables declared before the
// section and assigned inside it.
//
//	data, err := pool.BlockingValue(func() ([]byte, error) { return os.ReadFile(path) })
//
// Everything Blocking documents holds: outside a task, or inside another
// section, it just calls f; inside f the task's *Worker must not be used;
// a panic in f unwinds on from BlockingValue once the task has its worker
// back. For a call with no result, or with results of another shape, use
// Blocking.
func BlockingValue[T any](f func() (T, error)) (T, error) {
	if f == nil {
		panic("pool: BlockingValue with a nil function")
	}
	var v T
	var err error
	sched.Blocking(func() { v, err = f() })
	return v, err
}

// WithMaxBlocking limits the tasks of the pool inside a blocking
// section's f at once to n, as errgroup's SetLimit limits the goroutines
// of a group: a section past the limit waits until another section's f
// returns, and then runs. It waits without its worker: the task's worker
// goes on with other tasks meanwhile (the task's own forks included), as
// while its f runs, so the limit bounds how many blocking calls are in
// flight (open files, connections to a service) and never holds ready
// work back. Like SetLimit it can deadlock a program whose sections wait
// for each other in a number larger than the limit (a barrier of more
// tasks than n whose wait is inside the section, say): set it above what
// the program needs at once. Unlike SetLimit, which holds back the loop
// that starts goroutines, so that they start in the loop's order, the
// limit applies where tasks enter their sections, in the order the
// workers run them: a task that the others wait for (an item whose error
// cancels the rest) may queue for a slot behind them. Waits that fj
// itself makes in a section (a task calling another pool, see Pool.Run)
// are joins and take no slot.
//
// By default a pool sets no limit: a task in a section costs a goroutine,
// as a blocked goroutine of errgroup does. WithMaxBlocking panics if n < 1.
func WithMaxBlocking(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("pool: WithMaxBlocking(%d): the limit must be at least 1", n))
	}
	return func(c *Config) { c.MaxBlocking = n }
}
