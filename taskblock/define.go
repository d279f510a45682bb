package taskblock

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Define runs body with a new Block and returns once the body has returned
// and every task run in the block (directly or by its tasks) has finished.
//
// On a *pool.Pool, Define runs the body on one of the pool's workers and
// blocks the calling goroutine; on a *pool.Worker (inside a task) it runs
// the body right there. Either way, waiting for the tasks never blocks a
// worker: it runs tasks until the block is done.
//
// If the body or any task panics, the block is canceled (tasks not started
// yet are skipped), and once every started task has finished Define panics
// with a Panics value holding every captured panic, each with its stack.
func Define(r pool.Runner, body func(b *Block)) {
	if body == nil {
		panic("taskblock: Define with a nil body")
	}
	var ps Panics
	if w, ok := r.(*pool.Worker); ok && w != nil {
		// The common nested case: no closure, nothing escapes but the Block.
		ps, _ = define(w, body, nil).outcome()
	} else {
		ps, _ = onPool(r, body, nil).outcome()
	}
	if ps != nil {
		panic(ps)
	}
}

// DefineErr is Define for tasks that can fail, in the manner of errgroup:
// start them with b.Go. The first non-nil error, from a task or from the
// body, cancels the block (tasks not started yet are skipped; running ones
// can poll b.Canceled) and is what DefineErr returns, after every started
// task has finished. Panics are handled as in Define and take precedence
// over errors.
func DefineErr(r pool.Runner, body func(b *Block) error) error {
	if body == nil {
		panic("taskblock: DefineErr with a nil body")
	}
	var ps Panics
	var err error
	if w, ok := r.(*pool.Worker); ok && w != nil {
		ps, err = define(w, nil, body).outcome()
	} else {
		ps, err = onPool(r, nil, body).outcome()
	}
	if ps != nil {
		panic(ps)
	}
	return err
}

// onPool defines the block on a worker of r, which is not a *pool.Worker,
// and returns it once Define's work is done.
//
// A runtime.Goexit in the body (or in a task that the body's worker ran
// inline) cannot be stopped: it unwinds the function running on the pool,
// whose report, a *pool.PanicError wrapping pool.ErrGoexit, is what r.Run
// panics with. By then the block has recorded the Goexit as its body's (or
// task's) and finished; its Panics, which say so, are raised instead.
func onPool(r pool.Runner, body func(*Block), bodyErr func(*Block) error) (b *Block) {
	defer func() {
		if x := recover(); x != nil {
			if b != nil && b.phase.Load() == finished {
				if ps, _ := b.outcome(); ps != nil {
					panic(ps)
				}
			}
			panic(x)
		}
	}()
	on(r, func(w *pool.Worker) {
		b = newBlock(w, bodyErr != nil)
		b.define(body, bodyErr)
	})
	return b
}

// on calls f on a worker of r: inline on a *pool.Worker, submitted and
// waited for on a *pool.Pool.
func on(r pool.Runner, f func(w *pool.Worker)) {
	switch r := r.(type) {
	case *pool.Worker:
		if r == nil {
			panic("taskblock: nil *pool.Worker")
		}
		f(r)
	case nil:
		panic("taskblock: nil pool.Runner")
	default:
		r.Run(f)
	}
}

// define runs the body (exactly one of body and bodyErr is set) on w and
// waits for the block's tasks.
func define(w *pool.Worker, body func(*Block), bodyErr func(*Block) error) *Block {
	b := newBlock(w, bodyErr != nil)
	b.define(body, bodyErr)
	return b
}

func newBlock(w *pool.Worker, errMode bool) *Block {
	b := &Block{w: w, errMode: errMode}
	if sched.DebugChecks {
		b.bodyG = sched.Goid()
	}
	return b
}

// define runs the body and waits for the block's tasks, on b.w.
func (b *Block) define(body func(*Block), bodyErr func(*Block) error) {
	returned := false
	defer func() {
		if !returned {
			// runtime.Goexit is unwinding this goroutine: called by the
			// body, or by a task that b.wait ran inline. It cannot be
			// stopped and would skip the rest of define, so keep the
			// block strict here. The enclosing task reports the Goexit.
			b.phase.Store(bodyDone)
			b.wait()
			b.phase.Store(finished)
		}
	}()
	b.runBody(body, bodyErr)
	b.phase.Store(bodyDone)
	b.wait()
	b.phase.Store(finished)
	returned = true
}

// runBody runs the body, recording a panic (or a Goexit) as the block's.
func (b *Block) runBody(body func(*Block), bodyErr func(*Block) error) {
	var pe *pool.PanicError
	var err error
	defer func() {
		// Deferred for the same reason as in task.Run: a Goexit in the
		// body is recorded too, as the body's.
		if pe != nil {
			b.fail(pe, true)
		} else if err != nil {
			b.setErr(err)
		}
	}()
	(*sched.Worker)(b.w).Try(&pe, func() {
		if bodyErr != nil {
			err = bodyErr(b)
		} else {
			body(b)
		}
	})
}
