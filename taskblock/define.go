package taskblock

import (
	"sync/atomic"
	"unsafe"

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
		return newBlock(w, bodyErr != nil).define(body, bodyErr)
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
	returned := false
	x, panicked := sched.Recover(func() {
		sched.Do(p, nil, func(w *pool.Worker) {
			b = newBlock(w, bodyErr != nil)
			ps, err = b.define(body, bodyErr)
			returned = true
		})
	})
	if panicked {
		// define did not return, so it kept b's state, as it was.
		if b != nil && !returned {
			if s, flags := b.load(); s.ended(flags) {
				if ps, _ := s.outcome(); ps != nil {
					panic(ps)
				}
			}
		}
		panic(x)
	}
	return ps, err
}

// newBlock returns a new Block for a body run on w by w's holder, with a
// state from w's free list if it has one (release).
//
// The Blocks themselves come from a batch that the worker allocates at
// once, 512 of them in 4 KiB (sched.Worker.LocalBlocks): a Define costs no
// allocation when its state is reused, 8 bytes of a batch instead. A
// Block is never used twice: the body gets a *Block, which it may keep
// after Define returned, and using it then must panic, not start a task
// in whatever block reused its memory (the old pointer would be the new
// block's own). A kept Block keeps its batch alive.
func newBlock(w *pool.Worker, errMode bool) *Block {
	sw := sched.From[sched.Worker](w)
	slot := sw.LocalBlocks()
	l := (*local)(*slot)
	if l == nil {
		l = new(local)
		*slot = unsafe.Pointer(l)
	}
	var s *state
	if n := len(l.free); n > 0 {
		i := l.free[n-1]
		l.free = l.free[:n-1]
		if s = l.states[i]; s == nil {
			s = newState(w, i)
			l.states[i] = s
		}
	} else {
		s = newState(w, int32(len(l.states)))
		l.states = append(l.states, s)
	}
	if l.batch == nil || l.next == len(l.batch) {
		l.batch, l.next = new([512]Block), 0
	}
	b := &l.batch[l.next]
	l.next++
	var flags uintptr
	if errMode {
		flags = errBit
	}
	// A plain store: b is new, and the body and the tasks see it
	// through the call and the forks. A Block kept from an earlier Define
	// on s has endedBit set, and of what is written here reads only
	// bodyG, atomically: a store most Defines skip, their body running on
	// the goroutine of the Define before.
	b.p = unsafe.Add(unsafe.Pointer(s), flags)
	if g := sched.Goid(); s.bodyG.Load() != g {
		s.bodyG.Store(g)
	}
	return b
}

func newState(w *pool.Worker, slot int32) *state {
	s := &state{w: w, slot: slot}
	s.group.OpenOn((*failures)(s), sched.From[sched.Worker](w))
	return s
}

// local is what a worker keeps for taskblock: its states and the Blocks
// it hands out next. A state is found by its index, so that taking and
// handing back one writes no pointer (no write barrier): free lists the
// indices of the states not in use, and of the slots whose state was given
// up (nil), to fill anew.
type local struct {
	states []*state
	free   []int32
	batch  *[512]Block
	next   int // the next Block of batch to hand out
}

// end ends the block, once the body has returned and s.wait with it: from
// now on a Run on b panics. Then it waits for any task that a Run racing
// with the end counted before it could tell: only a Block kept past its
// Define and used from another task does that, and it panics, but such a
// task may already have been forked (schedule).
//
// A state that may be reused (G5) leaves its group open and b is marked
// ended (endedBit) for good: the next Define opens no group, and Close and
// Open cost nothing. Any other closes its group (G1, G2), which ends b
// once its tasks have finished, and goes on serving b, so that Canceled on
// b still says what happened.
func (b *Block) end() {
	s, _ := b.load()
	if s.group.Reusable() {
		// Before the group's count is read again (schedule, release),
		// and for good: b never serves again. An Or on p as a word,
		// inlined (StorePointer is a call): p points into s before and
		// after, so the garbage collector, which moves nothing, needs
		// no write barrier to see s through it.
		atomic.OrUintptr((*uintptr)(unsafe.Pointer(&b.p)), endedBit)
	} else {
		s.group.Close()
	}
	if !s.group.IsSet() {
		s.wait()
	}
}

// release hands b's state back to its worker for a later Define, if end
// let b go of it and it may still be reused (G5: the block did not fail
// and every task ran on the worker, inline). Otherwise the worker gives it
// up, to the garbage collector once b and its tasks are. Called by the
// body's goroutine, holding the worker, once the block has ended.
func (b *Block) release() {
	s, flags := b.load()
	l := (*local)(*sched.From[sched.Worker](s.w).LocalBlocks())
	if flags&endedBit == 0 || !s.group.Reusable() {
		l.states[s.slot] = nil
	}
	l.free = append(l.free, s.slot)
}

// define runs the body on b's worker, waits for the block's tasks (G4),
// and returns the block's outcome. The body and that wait run under one
// capture, and the tasks the wait takes back run inline without one each
// (sched.Group.RunOpener, G6).
func (b *Block) define(body func(*Block), bodyErr func(*Block) error) (Panics, error) {
	s, _ := b.load()
	returned := false
	defer func() {
		if !returned {
			// runtime.Goexit is unwinding this goroutine: called by the
			// body, or by a task that the wait ran inline. RunOpener
			// reported it and waited for the block's tasks; end the
			// block. The enclosing task reports the Goexit.
			s.waiting = false
			b.end()
			b.release()
		}
	}()
	s.group.RunOpener(sched.From[sched.Worker](s.w), func() {
		if bodyErr != nil {
			if err := bodyErr(b); err != nil {
				s.setErr(err)
			}
		} else {
			body(b)
		}
		s.waiting = true // the wait begins (Wait)
	}, func(p *sched.Panic) { s.fail(p, true) })
	s.waiting = false
	b.end()
	returned = true
	ps, err := s.outcome()
	b.release()
	sched.From[sched.Worker](s.w).Release() // sched's stall.md, Y6: the caller's code runs next
	return ps, err
}
