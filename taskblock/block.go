package taskblock

import (
	"sync"
	"sync/atomic"

	"github.com/forkjoin/fj/pool"
)

// Block is a scope of tasks, handed to the body of Define or DefineErr.
// Every task run in it has finished when Define returns.
//
// A Block belongs to its body and its tasks. Run and Go may be called by
// the body, by the tasks, and by whatever those run through fj (the
// closures of a Join, the body of a parallel loop, a nested block), on any
// worker. Wait may be called by the body only. Do not use a Block from a
// goroutine you start yourself, nor from work submitted to a *pool.Pool
// (pass the worker instead), nor after its Define returned: the block
// cannot detect the first two, and Run, Go and Wait panic on the third.
type Block struct {
	w *pool.Worker // the worker running the body

	// pending counts tasks scheduled and not yet finished (skipped
	// tasks count as finished); Define and Wait wait until it is zero.
	pending pool.Counter

	// departures is w.Departures() when the body started. Go cannot tell
	// Run which goroutine calls it, and only w's goroutine may push onto
	// w's deque. But code of this block (the body, its tasks, what they
	// fork) can run on another goroutine only after it left w through a
	// steal, an overflow or an injection, and such code then sees
	// w.Departures() changed. While it is unchanged, every caller of Run
	// is on w's goroutine and Run forks onto w's deque; afterwards Run
	// goes through the pool's injector, which is safe from anywhere.
	departures uint64

	scope pool.Scope // the Region the block was defined in, for injected tasks

	canceled atomic.Bool // a task or the body panicked or failed
	finished atomic.Bool // Define has returned
	errMode  bool        // created by DefineErr: Go is allowed

	// failure is allocated by the first panic or error; most blocks never
	// need it, and it would double the size of every Block.
	failure atomic.Pointer[failure]
}

type failure struct {
	mu     sync.Mutex
	panics Panics
	err    error
}

// task is one function run in a block.
type task struct {
	pool.Task
	b     *Block
	f     func(w *pool.Worker)
	fe    func(w *pool.Worker) error
	owner *pool.Worker // the worker whose deque it was pushed on, or nil
}

// Run starts f(w) as a task of the block, on the worker of the caller (the
// body's worker when called from the body), from where idle workers may
// steal it. Once a task of the block has panicked or failed, the block is
// canceled and Run does not start f at all.
func (b *Block) Run(f func(w *pool.Worker)) {
	if f == nil {
		panic("taskblock: Run with a nil function")
	}
	b.schedule(f, nil, "Run")
}

// Go starts f(w) as a task of a block created by DefineErr. The first
// non-nil error returned by a task (or by the body) cancels the block:
// tasks that have not started yet are skipped, Canceled reports true so
// that running tasks can stop early, and DefineErr returns that error.
func (b *Block) Go(f func(w *pool.Worker) error) {
	if f == nil {
		panic("taskblock: Go with a nil function")
	}
	if !b.errMode {
		panic("taskblock: Go on a block from Define; use DefineErr for tasks that return errors")
	}
	b.schedule(nil, f, "Go")
}

func (b *Block) schedule(f func(*pool.Worker), fe func(*pool.Worker) error, op string) {
	if b.finished.Load() {
		panic("taskblock: " + op + " on a block whose Define has returned")
	}
	if b.canceled.Load() {
		return
	}
	b.pending.Add(1)
	if b.w.Departures() != b.departures {
		t := &task{b: b, f: f, fe: fe}
		t.Task.Init(t)
		t.Task.SetScope(b.scope)
		b.w.Inject(&t.Task)
		return
	}
	// On w's goroutine: the task last run from this deque slot, if it
	// ran here, is free for reuse (see task.Run and pool.Reuse).
	t := pool.Reuse[task](b.w)
	if t == nil {
		t = &task{}
		t.Task.Init(t)
	}
	t.b, t.f, t.fe, t.owner = b, f, fe, b.w
	b.w.Spawn(&t.Task)
}

// Wait returns once every task run in the block so far, and every task
// those ran, has finished. It is a join point for the body; meanwhile the
// body's worker runs tasks instead of blocking. It must be called by the
// body only: a task that waits for its own block would wait for itself.
// Wait does not raise the tasks' panics; Define does, when it returns.
func (b *Block) Wait() {
	if b.finished.Load() {
		panic("taskblock: Wait on a block whose Define has returned")
	}
	b.wait()
}

// wait runs the block's tasks that are still at the bottom of the body's
// worker's deque, inline (they are what the body waits for, so they cannot
// wait for the body), and then waits for the rest, which other workers
// took.
func (b *Block) wait() {
	b.w.TakeBackUntil(&b.pending, func(r pool.Runnable) bool {
		t, ok := r.(*task)
		return ok && t.b == b
	})
	b.w.WaitFor(&b.pending)
}

// Worker returns the worker that runs the body. The body may pass it to
// nested parallel calls (forkjoin, parallel, a nested Define).
func (b *Block) Worker() *pool.Worker { return b.w }

// Canceled reports whether the block has been canceled: a task or the
// body panicked, or (DefineErr) returned an error. Long-running tasks may
// poll it to stop early.
func (b *Block) Canceled() bool { return b.canceled.Load() }

// Run implements pool.Runnable.
func (t *task) Run(w *pool.Worker) {
	b, f, fe := t.b, t.f, t.fe
	// Done with t itself. If it runs on the worker that pushed it, nobody
	// else can reach it any more (a thief that read its slot lost the
	// race to the pop), so hand it back now: the first Run inside f uses
	// the same deque slot and reuses t. A stolen task is left to the
	// garbage collector; its free flag belongs to its owner.
	if t.owner == w {
		pool.Recycle(w, &t.Task) // its fields are overwritten when it is reused
	} else {
		t.b, t.f, t.fe = nil, nil, nil
	}

	defer b.pending.Done() // last: the task counts as finished after everything below
	if b.canceled.Load() {
		return // not started: skipped
	}
	returned := false
	defer func() {
		if pe := w.Capture(recover(), returned); pe != nil {
			b.fail(pe)
		}
	}()
	if fe != nil {
		if err := fe(w); err != nil {
			b.setErr(err)
		}
	} else {
		f(w)
	}
	returned = true
}

func (b *Block) failState() *failure {
	if f := b.failure.Load(); f != nil {
		return f
	}
	b.failure.CompareAndSwap(nil, new(failure))
	return b.failure.Load()
}

func (b *Block) fail(pe *pool.PanicError) {
	f := b.failState()
	f.mu.Lock()
	f.panics = append(f.panics, pe)
	f.mu.Unlock()
	b.canceled.Store(true)
}

func (b *Block) setErr(err error) {
	f := b.failState()
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	b.canceled.Store(true)
}

// outcome returns the panics and the first error, once the block is done.
func (b *Block) outcome() (Panics, error) {
	f := b.failure.Load()
	if f == nil {
		return nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.panics, f.err
}
