package taskblock

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Define runs body with a new Block and returns once the body has returned
// and every task run in the block (directly or by its tasks) has finished.
//
// On a *pool.Worker (inside a task), or on a *pool.Pool from inside one of
// that pool's own tasks, Define runs the body right there, on the caller's
// worker; on a *pool.Pool from any other goroutine it runs the body on one
// of the pool's workers and blocks the calling goroutine. Either way,
// waiting for the tasks never blocks a worker: it runs tasks until the
// block is done.
//
// If the body or any task panics, the block is canceled (tasks not started
// yet are skipped), and once every started task has finished Define panics
// with a Panics value holding every captured panic, each with its stack,
// in the order they were captured.
func Define(r pool.Runner, body func(b *Block)) {
	if body == nil {
		panic("taskblock: Define with a nil body")
	}
	if ps, _ := run(r, body, nil); ps != nil {
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
	ps, err := run(r, nil, body)
	if ps != nil {
		panic(ps)
	}
	return err
}

// run defines the block on the worker that pool.Enter finds, or on one of
// r's workers from outside, and returns its outcome (exactly one of body
// and bodyErr is set).
func run(r pool.Runner, body func(*Block), bodyErr func(*Block) error) (Panics, error) {
	if w := pool.Enter(r); w != nil {
		b := newBlock(w, bodyErr != nil)
		b.define(body, bodyErr)
		return b.outcome()
	}
	return onPool(r.Pool(), body, bodyErr)
}

// onPool defines the block on a worker of p, from a goroutine outside p.
//
// A runtime.Goexit in the body (or in a task that the body's worker ran
// inline) cannot be stopped: it unwinds the function running on the pool,
// whose report, a *pool.PanicError wrapping pool.ErrGoexit, is what p.Run
// panics with. By then the block has recorded the Goexit as its body's (or
// task's) and finished; its Panics, which say so, are raised instead.
func onPool(p *pool.Pool, body func(*Block), bodyErr func(*Block) error) (ps Panics, err error) {
	var b *Block
	x, panicked := sched.Recover(func() {
		sched.Do(p, nil, func(w *pool.Worker) {
			b = newBlock(w, bodyErr != nil)
			b.define(body, bodyErr)
		})
	})
	if panicked {
		if b != nil && b.finished.Load() {
			if ps, _ := b.outcome(); ps != nil {
				panic(ps)
			}
		}
		panic(x)
	}
	return b.outcome()
}

func newBlock(w *pool.Worker, errMode bool) *Block {
	return &Block{w: w, errMode: errMode, bodyG: sched.Goid()}
}

// define runs the body on b.w and waits for the block's tasks (G4).
func (b *Block) define(body func(*Block), bodyErr func(*Block) error) {
	b.group.Open((*failures)(b))
	closed, returned := false, false
	defer func() {
		if !returned {
			// runtime.Goexit is unwinding this goroutine: called by the
			// body, or by a task that b.wait ran inline. It cannot be
			// stopped and would skip the rest of define, so keep the
			// block strict here. The enclosing task reports the Goexit.
			if !closed {
				b.group.Close()
			}
			b.wait()
			b.finished.Store(true)
		}
	}()
	b.runBody(body, bodyErr)
	closed = true
	b.group.Close() // G1: from now on only the block's tasks may add to it
	b.wait()
	b.finished.Store(true)
	returned = true
}

// runBody runs the body, recording a panic (or a Goexit) as the block's.
func (b *Block) runBody(body func(*Block), bodyErr func(*Block) error) {
	var err error
	sched.From[sched.Worker](b.w).Guard(func() {
		if bodyErr != nil {
			err = bodyErr(b)
		} else {
			body(b)
		}
	}, func(p *sched.Panic) {
		if p != nil {
			b.fail(p, true)
		} else if err != nil {
			b.setErr(err)
		}
	})
}
