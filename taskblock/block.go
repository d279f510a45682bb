package taskblock

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Block is a scope of tasks, handed to the body of Define or DefineErr.
// Every task run in it has finished when Define returns.
//
// The body and every task of the block (and code they run through fj,
// such as a parallel loop's body) start tasks with Run, or Go in a block
// from DefineErr: each new task is forked onto the worker of the caller,
// depth first like a fork, and idle workers steal from there. Wait is for
// the body only. Using a Block after its Define returned panics, and so
// does using it from a goroutine that is not running a task of the
// block's pool (a goroutine you started).
type Block struct {
	// A Block is a handle, one pointer, never used for two Defines: the
	// body may keep it, and using it after its Define returned must
	// panic, not start a task in a later block. What a block needs while
	// it runs is its state, which its worker reuses for a later Define
	// once nothing can reach it but this handle (newBlock, release).
	//
	// p is the block's *state with two flags in its low bits (a state is
	// 8-aligned, and p, still pointing into it, keeps it alive): errBit,
	// set before the body gets b, and endedBit, set by end once the state
	// may serve a later Define. What a kept Block must learn (has its
	// Define returned? was it DefineErr's?) is thus its own, and no later
	// Define rewrites it: a kept Block may be used by any goroutine while
	// its state serves another block, so every read of p is atomic (load),
	// as is end's store; newBlock's is plain, before anyone has b.
	p unsafe.Pointer
}

// The flags in a Block's p.
const (
	endedBit = 1 << iota // its Define has returned and its state may be reused (end)
	errBit               // made by DefineErr: Go is allowed
	flagBits = endedBit | errBit
)

// load returns b's state and flags.
func (b *Block) load() (*state, uintptr) {
	p := atomic.LoadPointer(&b.p)
	return (*state)(unsafe.Pointer(uintptr(p) &^ flagBits)), uintptr(p) & flagBits
}

// state is a block's state, behind its Block. A worker keeps a list of
// free ones: a Define whose tasks all ran on its own worker hands its
// state back for the next Define there (sched.Group, G5), and one whose
// tasks ran elsewhere, or failed, leaves it to the garbage collector.
//
// A Block kept past its Define reaches its state while a later block uses
// it: it reads only what never changes (w, its group's home), the atomic
// fields, its group's local count only as the holder of w (who alone
// writes it), and waiting only once bodyG says that the caller is the
// body (Wait).
type state struct {
	w *pool.Worker // the worker running the body, the state's home

	// group counts the tasks not yet finished, plus the body while it
	// runs; a fork into an ended block is refused (sched.Group, G1-G5).
	// It runs the tasks, skips them once canceled, and reports their
	// failures to the block (Failed).
	group sched.Group

	// bodyG is the body's goroutine id: Wait is the body's alone.
	// Atomic, for a kept Block's Wait, and stored only when it changes
	// (newBlock): most Defines on a worker run on the same goroutine.
	bodyG atomic.Int64

	// waiting is set while the body waits (Wait, and the end of Define):
	// the only time a task of the block runs on the body's goroutine,
	// inline. Only that goroutine reads and writes it.
	waiting bool

	// failure is allocated by the first panic or error; most blocks never
	// need it.
	failure atomic.Pointer[failure]

	slot int32 // its index in its worker's local.states
}

type failure struct {
	mu     sched.Lock // fj's own: a holder waiting in it is no stall
	panics []capturedPanic
	err    error
}

type capturedPanic struct {
	p    *sched.Panic
	body bool
}

// Run starts f(w) as a task of the block. The body and every task of the
// block may call it: f is forked onto the caller's own worker (found from
// the calling goroutine, in nanoseconds), where idle workers may steal it,
// so that tasks that start tasks run depth first, like forks, and keep
// only O(depth) of them queued per worker.
//
//	taskblock.Define(p, func(b *taskblock.Block) {
//		var walk func(w *pool.Worker, n *Node)
//		walk = func(w *pool.Worker, n *Node) {
//			for _, c := range n.Children {
//				b.Run(func(w *pool.Worker) { walk(w, c) })
//			}
//			visit(n)
//		}
//		b.Run(func(w *pool.Worker) { walk(w, root) })
//	})
//
// Once a task of the block has panicked or failed, the block is canceled
// and Run does not start f at all. Run panics if the block has ended
// (Define returned) or if the calling goroutine is not running a task of
// the block's pool.
func (b *Block) Run(f func(w *pool.Worker)) {
	if f == nil {
		panic("taskblock: Run with a nil function")
	}
	s, flags := b.live("Run")
	b.schedule(s, flags, s.caller("Run"), f, nil, "Run")
}

// RunFrom is Run with the caller's worker given: w must be the worker the
// calling task received. It is checked, as every *pool.Worker given to fj
// is, and then it is Run.
func (b *Block) RunFrom(w *pool.Worker, f func(w *pool.Worker)) {
	if f == nil {
		panic("taskblock: RunFrom with a nil function")
	}
	if w == nil {
		panic("taskblock: RunFrom with a nil *pool.Worker")
	}
	s, flags := b.live("RunFrom")
	b.schedule(s, flags, s.from(w, "RunFrom", "taskblock.Block.RunFrom"), f, nil, "RunFrom")
}

// Go starts f(w) as a task of a block created by DefineErr, as Run does.
// The first non-nil error returned by a task (or by the body) cancels the
// block: tasks that have not started yet are skipped, Canceled reports
// true so that running tasks can stop early, and DefineErr returns that
// error.
func (b *Block) Go(f func(w *pool.Worker) error) {
	if f == nil {
		panic("taskblock: Go with a nil function")
	}
	s, flags := b.live("Go")
	checkErrMode(flags, "Go")
	b.schedule(s, flags, s.caller("Go"), nil, f, "Go")
}

// GoFrom is Go with the caller's worker given, as RunFrom is Run.
func (b *Block) GoFrom(w *pool.Worker, f func(w *pool.Worker) error) {
	if f == nil {
		panic("taskblock: GoFrom with a nil function")
	}
	if w == nil {
		panic("taskblock: GoFrom with a nil *pool.Worker")
	}
	s, flags := b.live("GoFrom")
	checkErrMode(flags, "GoFrom")
	b.schedule(s, flags, s.from(w, "GoFrom", "taskblock.Block.GoFrom"), nil, f, "GoFrom")
}

// checkErrMode panics unless flags are those of a block from DefineErr.
// It comes after live: a kept Block whose Define has returned is told
// so, whichever kind of block its state serves now.
func checkErrMode(flags uintptr, op string) {
	if flags&errBit == 0 {
		panic("taskblock: " + op + " on a block from Define; use DefineErr for tasks that return errors")
	}
}

// caller returns the worker whose task the calling goroutine runs in the
// block's pool, for Run and Go.
func (s *state) caller(op string) *sched.Worker {
	if home := sched.From[sched.Worker](s.w); home.Held() {
		return home // the body, or a task it runs inline: no lookup
	}
	w := s.pool().Caller()
	if w == nil {
		if s.pool().InSection() {
			panic(sched.SectionMisuse("taskblock.Block."+op, s.pool()))
		}
		panic("taskblock: " + op + " called from a goroutine that is not running a task of the block's pool " +
			"(a goroutine you started, or a task of another pool): only the body and the tasks of the block " +
			"may start tasks in it")
	}
	return w
}

// from checks the worker given to RunFrom or GoFrom; name is op's full
// name, a constant, so that checking it costs no allocation.
func (s *state) from(w *pool.Worker, op, name string) *sched.Worker {
	sw := sched.From[sched.Worker](w)
	if sw.Pool() != s.pool() {
		panic("taskblock: " + op + " with a worker of another pool than the block's")
	}
	sw.Check(name)
	return sw
}

// pool is the block's pool: its body's worker's.
func (s *state) pool() *sched.Pool { return sched.From[sched.Worker](s.w).Pool() }

// ended reports whether flags, and s's group, say that the Define of the
// Block they were loaded from has returned, or is about to: end set
// endedBit (its state may serve a later block), or the group has ended
// (G2; end).
func (s *state) ended(flags uintptr) bool {
	return flags&endedBit != 0 || s.group.Ended()
}

// live returns b's state and flags, and panics if b's Define has
// returned: the first check of every use of b that could start or wait
// for a task, before any other, so that a kept Block is told what
// happened to it.
func (b *Block) live(op string) (*state, uintptr) {
	s, flags := b.load()
	if s.ended(flags) {
		returned(op, flags)
	}
	return s, flags
}

// returned panics for op on a Block, with flags, whose Define has
// returned, naming that Define (Define or DefineErr). Not inlined: it
// would put its string building in Run's and schedule's frames.
//
//go:noinline
func returned(op string, flags uintptr) {
	define := "Define"
	if flags&errBit != 0 {
		define = "DefineErr"
	}
	panic("taskblock: " + op + " on a block whose " + define + " has returned")
}

// schedule forks a task of the block onto w, whose holder is the caller;
// s and flags are what live returned.
func (b *Block) schedule(s *state, flags uintptr, w *sched.Worker, f func(*pool.Worker), fe func(*pool.Worker) error, op string) {
	g := &s.group
	if g.Canceled() {
		// Nothing is started, but a Block that has ended must panic:
		// its state may be a later block's, canceled.
		if _, now := b.load(); now&endedBit != 0 {
			returned(op, now)
		}
		return
	}
	ok, local := g.AddOn(w)
	if !ok {
		// G2: every task has finished and the body has returned, so
		// end closed the group: live passed, but the Define has
		// returned since, or is returning.
		returned(op, flags)
	}
	if _, now := b.load(); now&endedBit != 0 {
		// live passed, but the block ended since and its state
		// was reused: the count went to a later block (G5).
		g.UndoOn(local)
		w.Release() // sched's stall.md, Y6: the caller's code runs next
		returned(op, now)
	}
	sched.Fork(g, w, f, fe, local)
}

// Wait returns once every task run in the block so far, and every task
// those ran, has finished. It is a join point for the body; meanwhile the
// body's worker runs tasks instead of blocking. Only the body may call it:
// a task that waits for its own block would wait for itself, so Wait
// called from any other goroutine panics. Wait does not raise the tasks'
// panics; Define does, when it returns.
func (b *Block) Wait() {
	s, _ := b.live("Wait")
	// Once live passed, only b's body finds its own id in bodyG: a
	// later Define on s stores its own body's, but b ended before it
	// began, which that body would have seen (live). And b's body, the
	// goroutine that ends b, is not ending it meanwhile, so waiting,
	// which it alone writes, is not written while it reads it.
	me, body := sched.Goid(), s.bodyG.Load()
	if sw := sched.From[sched.Worker](s.w); me == body && !sw.HeldOrReclaimed() {
		// The body's goroutine, not holding the body's worker, nor
		// given it back by a hand-over (stall.md, Y2-Y5): the body
		// is inside a blocking section, whose goroutine gave the
		// worker up (it runs other tasks meanwhile). Waiting would
		// take the worker's deque from under its holder.
		panic(sched.SectionMisuse("taskblock.Block.Wait", s.pool()))
	}
	if me != body || s.waiting {
		// Another goroutine, or a task of the block that the waiting
		// body runs inline on its own goroutine.
		panic("taskblock: Wait called from a task of its own block, or from a goroutine that is not running " +
			"the block's body: the task would wait for itself; only the body may call Wait")
	}
	s.wait()
}

// wait runs the block's tasks that are still at the bottom of the body's
// worker's deque, inline, and then waits for the rest (G4).
func (s *state) wait() {
	s.waiting = true
	s.group.Wait(sched.From[sched.Worker](s.w))
	s.waiting = false
}

// Worker returns the worker that runs the body. The body may pass it to
// nested parallel calls (forkjoin, parallel, a nested Define).
func (b *Block) Worker() *pool.Worker {
	s, _ := b.load()
	return s.w
}

// Canceled reports whether the block has been canceled: a task or the
// body panicked, or (DefineErr) returned an error. Long-running tasks may
// poll it to stop early.
func (b *Block) Canceled() bool {
	s, _ := b.load()
	c := s.group.Canceled()
	// A state is reused only if its block was not canceled (G5): what
	// it says then is a later block's. endedBit is set before the state
	// serves another block, so it is set if c is a later block's.
	_, flags := b.load()
	return c && flags&endedBit == 0
}

// failures is the block's state as its group's owner (sched.GroupOwner):
// told of the failures of its tasks. A type of its own, so that Failed is
// not a method of state's.
type failures state

// Failed records the failure of a task of the block.
func (o *failures) Failed(p *sched.Panic, err error) {
	s := (*state)(o)
	if p != nil {
		s.fail(p, false)
	} else {
		s.setErr(err)
	}
}

func (b *state) failState() *failure {
	if f := b.failure.Load(); f != nil {
		return f
	}
	b.failure.CompareAndSwap(nil, new(failure))
	return b.failure.Load()
}

func (b *state) fail(p *sched.Panic, body bool) {
	f := b.failState()
	f.mu.Lock()
	f.panics = append(f.panics, capturedPanic{p, body})
	f.mu.Unlock()
	b.group.Cancel()
}

func (b *state) setErr(err error) {
	f := b.failState()
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	b.group.Cancel()
}

// outcome returns the panics, each on its own and in the order they were
// captured (sched.InOrder: a task's panic that carries those of joins
// nested in it is taken apart), and the first error, once the block is
// done.
func (b *state) outcome() (Panics, error) {
	f := b.failure.Load()
	if f == nil {
		return nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.panics) == 0 {
		return nil, f.err
	}
	var body, all []*sched.Panic
	for _, c := range f.panics {
		all = append(all, c.p)
		if c.body {
			body = append(body, c.p)
		}
	}
	bodySeqs := sched.InOrder(body) // the body's panics, and those of its nested joins
	ordered := sched.InOrder(all)
	ps := make(Panics, len(ordered))
	for i, p := range ordered {
		pe, _ := p.Err.(*pool.PanicError)
		isBody := slices.ContainsFunc(bodySeqs, func(q *sched.Panic) bool { return q.Seq == p.Seq })
		ps[i] = Panic{PanicError: pe, Body: isBody}
	}
	return ps, f.err
}
