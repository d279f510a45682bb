package taskblock

import (
	"sync"
	"sync/atomic"

	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Block is a scope of tasks, handed to the body of Define or DefineErr.
// Every task run in it has finished when Define returns.
//
// The body starts tasks with Run (or Go), on its own worker. A task that
// starts more tasks in the same block uses RunFrom (or GoFrom) with the
// worker it runs on, so that they go on that worker's deque, depth first,
// like forks. Wait is for the body only. Using a Block after its Define
// returned panics; so do Run and Wait called from a task of the block once
// the body has returned or while it waits. In builds with the race
// detector or the fjdebug tag, a Block used from a goroutine that is not
// running its body or one of its tasks panics too.
type Block struct {
	w *pool.Worker // the worker running the body

	// pending counts tasks scheduled and not yet finished (skipped
	// tasks count as finished); Define and Wait wait until it is zero.
	pending sched.Counter

	// phase is where the body is (bodyRunning, bodyWaiting, bodyDone,
	// finished). Only the body's goroutine writes it; tasks on any
	// worker read it to refuse Run and Wait, which are the body's.
	phase atomic.Int32

	// bodyG is the body's goroutine id, in builds with debug checks.
	bodyG int64

	canceled atomic.Bool // a task or the body panicked or failed
	errMode  bool        // created by DefineErr: Go is allowed

	// failure is allocated by the first panic or error; most blocks never
	// need it, and it would double the size of every Block.
	failure atomic.Pointer[failure]
}

// The phases of a block, in the order they happen.
const (
	bodyRunning int32 = iota // the body runs and may call Run, Go and Wait
	bodyWaiting              // the body is in Wait: what calls Run or Wait now is a task
	bodyDone                 // the body returned; Define waits for the tasks
	finished                 // Define has returned
)

type failure struct {
	mu     sync.Mutex
	panics Panics
	err    error
}

// task is one function run in a block.
type task struct {
	sched.Task
	b     *Block
	f     func(w *pool.Worker)
	fe    func(w *pool.Worker) error
	owner *sched.Worker // the worker whose deque it was pushed on
}

// Run starts f(w) as a task of the block, on the body's worker, from where
// idle workers may steal it. Only the body may call Run: a task of the
// block starts more tasks with RunFrom, passing its own worker. Once a
// task of the block has panicked or failed, the block is canceled and Run
// does not start f at all.
func (b *Block) Run(f func(w *pool.Worker)) {
	if f == nil {
		panic("taskblock: Run with a nil function")
	}
	b.fromBody("Run", "RunFrom")
	b.schedule((*sched.Worker)(b.w), f, nil)
}

// RunFrom starts f(w) as a task of the block from a task of the block (or
// from the body, or from code they run through fj), forked onto w, the
// worker the caller runs on: tasks that start tasks run depth first, like
// forks, and keep only O(depth) of them queued per worker. Idle workers
// steal them from there.
//
//	taskblock.Define(p, func(b *taskblock.Block) {
//		var walk func(w *pool.Worker, n *Node)
//		walk = func(w *pool.Worker, n *Node) {
//			for _, c := range n.Children {
//				b.RunFrom(w, func(w *pool.Worker) { walk(w, c) })
//			}
//			visit(n)
//		}
//		b.Run(func(w *pool.Worker) { walk(w, root) })
//	})
func (b *Block) RunFrom(w *pool.Worker, f func(w *pool.Worker)) {
	if f == nil {
		panic("taskblock: RunFrom with a nil function")
	}
	b.schedule(b.from(w, "RunFrom"), f, nil)
}

// Go starts f(w) as a task of a block created by DefineErr, on the body's
// worker; only the body may call it (tasks use GoFrom). The first non-nil
// error returned by a task (or by the body) cancels the block: tasks that
// have not started yet are skipped, Canceled reports true so that running
// tasks can stop early, and DefineErr returns that error.
func (b *Block) Go(f func(w *pool.Worker) error) {
	if f == nil {
		panic("taskblock: Go with a nil function")
	}
	b.checkErrMode("Go")
	b.fromBody("Go", "GoFrom")
	b.schedule((*sched.Worker)(b.w), nil, f)
}

// GoFrom is RunFrom for a block created by DefineErr: it starts f(w) as a
// task of the block, forked onto w, the worker of the calling task.
func (b *Block) GoFrom(w *pool.Worker, f func(w *pool.Worker) error) {
	if f == nil {
		panic("taskblock: GoFrom with a nil function")
	}
	b.checkErrMode("GoFrom")
	b.schedule(b.from(w, "GoFrom"), nil, f)
}

func (b *Block) checkErrMode(op string) {
	if !b.errMode {
		panic("taskblock: " + op + " on a block from Define; use DefineErr for tasks that return errors")
	}
}

// fromBody panics unless op (Run or Go) may be called now: by the body,
// while it runs. Any other caller is a task, which must say which worker
// it runs on (alt).
func (b *Block) fromBody(op, alt string) {
	switch b.phase.Load() {
	case bodyRunning:
	case finished:
		panic("taskblock: " + op + " on a block whose Define has returned")
	default:
		panic("taskblock: " + op + " called from a task of the block (the body has returned or is waiting): " +
			"only the body may call " + op + "; a task starts more tasks with b." + alt + "(w, f), passing the worker it runs on")
	}
	if sched.DebugChecks && sched.Goid() != b.bodyG {
		panic("taskblock: " + op + " called from a goroutine that is not running the block's body: " +
			"a task of the block starts more tasks with b." + alt + "(w, f), passing the worker it runs on; " +
			"a goroutine you started may not use the block")
	}
}

// from checks the worker given to RunFrom or GoFrom.
func (b *Block) from(w *pool.Worker, op string) *sched.Worker {
	if w == nil {
		panic("taskblock: " + op + " with a nil *pool.Worker")
	}
	if b.phase.Load() == finished {
		panic("taskblock: " + op + " on a block whose Define has returned")
	}
	if w.Pool() != b.w.Pool() {
		panic("taskblock: " + op + " with a worker of another pool than the block's")
	}
	sw := (*sched.Worker)(w)
	if sched.DebugChecks {
		sw.CheckHolder("taskblock.Block." + op)
	}
	return sw
}

// schedule forks a task of the block onto w, whose holder is the caller.
func (b *Block) schedule(w *sched.Worker, f func(*pool.Worker), fe func(*pool.Worker) error) {
	if b.canceled.Load() {
		return
	}
	b.pending.Add(1)
	// The task last run from this deque slot, if it ran here, is free for
	// reuse (see task.Run and sched.Reuse).
	t := sched.Reuse[task](w)
	if t == nil {
		t = &task{}
		t.Task.Init(t)
	}
	t.b, t.f, t.fe, t.owner = b, f, fe, w
	w.Spawn(&t.Task)
}

// Wait returns once every task run in the block so far, and every task
// those ran, has finished. It is a join point for the body; meanwhile the
// body's worker runs tasks instead of blocking. Only the body may call it:
// a task that waits for its own block would wait for itself, so Wait
// called from a task of the block (once the body has returned or while it
// waits; in debug builds, always) panics. Wait does not raise the tasks'
// panics; Define does, when it returns.
func (b *Block) Wait() {
	switch b.phase.Load() {
	case bodyRunning:
	case finished:
		panic("taskblock: Wait on a block whose Define has returned")
	default:
		panic("taskblock: Wait called from a task of its own block: the task would wait for itself; only the body may call Wait")
	}
	if sched.DebugChecks && sched.Goid() != b.bodyG {
		panic("taskblock: Wait called from a goroutine that is not running the block's body " +
			"(a task of the block would wait for itself); only the body may call Wait")
	}
	b.phase.Store(bodyWaiting)
	b.wait()
	b.phase.Store(bodyRunning)
}

// wait runs the block's tasks that are still at the bottom of the body's
// worker's deque, inline (they are what the body waits for, so they cannot
// wait for the body), and then waits for the rest, which other workers
// took.
func (b *Block) wait() {
	w := (*sched.Worker)(b.w)
	w.TakeBackUntil(&b.pending, func(r sched.Runnable) bool {
		t, ok := r.(*task)
		return ok && t.b == b
	})
	w.WaitFor(&b.pending)
}

// Worker returns the worker that runs the body. The body may pass it to
// nested parallel calls (forkjoin, parallel, a nested Define).
func (b *Block) Worker() *pool.Worker { return b.w }

// Canceled reports whether the block has been canceled: a task or the
// body panicked, or (DefineErr) returned an error. Long-running tasks may
// poll it to stop early.
func (b *Block) Canceled() bool { return b.canceled.Load() }

// Run implements sched.Runnable.
func (t *task) Run(sw *sched.Worker) {
	b, f, fe := t.b, t.f, t.fe
	// Done with t itself. If it runs on the worker that pushed it, nobody
	// else can reach it any more (a thief that read its slot lost the
	// race to the pop), so hand it back now: the first RunFrom inside f
	// uses the same deque slot and reuses t. A stolen task is left to the
	// garbage collector; its free flag belongs to its owner.
	if t.owner == sw {
		sched.Recycle(sw, &t.Task) // its fields are overwritten when it is reused
	} else {
		t.b, t.f, t.fe = nil, nil, nil
	}

	defer b.pending.Done() // last: the task counts as finished after everything below
	if b.canceled.Load() {
		return // not started: skipped
	}
	w := (*pool.Worker)(sw)
	var err error
	var pe *pool.PanicError
	defer func() {
		// Deferred, so that it also runs while a runtime.Goexit in f
		// unwinds past Try (which has recorded it in pe by then).
		if pe != nil {
			b.fail(pe, false)
		} else if err != nil {
			b.setErr(err)
		}
	}()
	sw.Try(&pe, func() {
		if fe != nil {
			err = fe(w)
		} else {
			f(w)
		}
	})
}

func (b *Block) failState() *failure {
	if f := b.failure.Load(); f != nil {
		return f
	}
	b.failure.CompareAndSwap(nil, new(failure))
	return b.failure.Load()
}

func (b *Block) fail(pe *pool.PanicError, body bool) {
	f := b.failState()
	f.mu.Lock()
	f.panics = append(f.panics, Panic{PanicError: pe, Body: body})
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
