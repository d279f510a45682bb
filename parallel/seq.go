package parallel

import (
	"iter"
	"sync/atomic"

	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// ForSeq calls body(w, e) for every element e of seq, in parallel, and
// returns when all calls have returned. seq is sequential: only the
// calling task pulls it (seq runs on one goroutine, as a range loop would
// run it), in batches, and each batch runs as a task that any worker may
// steal. It is the tool for a source that cannot be indexed (a scanner, a
// channel, a tree walk); for a slice or a range, For is faster.
//
// Batches grow from 1 item to 128 (so that a short sequence of expensive
// items still spreads over the workers); Grain(n) fixes the batch size at
// n, and WithContext makes it Grain's or 1, as errgroup runs a goroutine
// per item. At most a few batches per worker are pulled ahead of the
// workers: the puller lets its worker run batches when they pile up, so
// memory stays bounded whatever the length of seq. Under WithContext it
// counts only the batches that have not started: bodies that wait (on
// the bodies' context, in a blocking section) do not keep the puller
// from starting the next item, and every item starts, as every goroutine
// of an errgroup does.
//
// Each batch is published for the other workers as it is made, before
// seq resumes, so that seq may wait for what the bodies produce: a
// channel worklist that the bodies feed, ranged over with Grain(1) or
// WithContext (with batches that grow, the puller would wait for an item
// that only an item of the batch it is filling can feed). The puller's
// wait in seq holds its worker: such a sequence needs a pool of two
// workers or more.
//
// seq may also yield from a goroutine of its own (sequentially, and never
// after it returned, as iter.Seq requires): the batches made there are
// queued to the pool, whose other workers run them, and are not counted
// against the look-ahead (that goroutine cannot lend a worker to run
// them while it waits, and the calling task's worker is held by seq:
// waiting could wait forever); on a pool of one worker, they run once seq
// has returned.
//
// If body panics, ForSeq stops pulling (seq's yield returns false),
// skips the batches not started, stops the running ones before their
// next item and panics, once they have ended, with a *pool.PanicError
// carrying the first panic. A panic in seq itself is re-raised the same
// way, after the batches already pulled have ended. Context and Stop stop
// ForSeq the same way, and it returns normally.
func ForSeq[E any](r pool.Runner, seq iter.Seq[E], body func(w *pool.Worker, e E), opts ...Option) {
	if seq == nil {
		panic("parallel: ForSeq with a nil sequence")
	}
	if body == nil {
		panic("parallel: ForSeq with a nil body")
	}
	each := func(w *pool.Worker, _ int, e E) error { body(w, e); return nil }
	seqCall(r, "ForSeq", seq, opts, func([]E) func(*pool.Worker, int, E) error { return each })
}

// ForSeqErr is ForSeq for a body that can fail, with ForErr's semantics:
// the first error stops pulling and skips the batches not started, and
// ForSeqErr returns it once the running batches have ended; with a
// Context option that ends, it returns context.Cause(ctx), unless a body
// failed first or every item had already run (then nil, as errgroup).
func ForSeqErr[E any](r pool.Runner, seq iter.Seq[E], body func(w *pool.Worker, e E) error, opts ...Option) error {
	if seq == nil {
		panic("parallel: ForSeqErr with a nil sequence")
	}
	if body == nil {
		panic("parallel: ForSeqErr with a nil body")
	}
	each := func(w *pool.Worker, _ int, e E) error { return body(w, e) }
	return seqCall(r, "ForSeqErr", seq, opts, func([]E) func(*pool.Worker, int, E) error { return each })
}

// MapSeq returns f(w, e) for every element e of seq, in the order of seq,
// computed in parallel as ForSeq runs its body. If the call stops early
// (Context, Stop), the result covers a prefix of seq, possibly shorter
// than seq, and holds R's zero value where f did not run.
func MapSeq[E, R any](r pool.Runner, seq iter.Seq[E], f func(w *pool.Worker, e E) R, opts ...Option) []R {
	if seq == nil {
		panic("parallel: MapSeq with a nil sequence")
	}
	if f == nil {
		panic("parallel: MapSeq with a nil function")
	}
	res, _ := mapSeq(r, "MapSeq", seq, opts, f, nil)
	return res
}

// MapSeqErr is MapSeq for a function that can fail, with ForSeqErr's
// semantics: the first error stops pulling and skips the batches not
// started, and MapSeqErr returns nil and that error once the running
// batches have ended; with a Context option that ends, it returns nil and
// context.Cause(ctx), unless a body failed first or every item had
// already run. Otherwise it returns f's results in the order of seq, and
// nil; after a Stop (a break) the result covers a prefix of seq and holds
// R's zero value where f did not run, as in MapSeq.
func MapSeqErr[E, R any](r pool.Runner, seq iter.Seq[E], f func(w *pool.Worker, e E) (R, error), opts ...Option) ([]R, error) {
	if seq == nil {
		panic("parallel: MapSeqErr with a nil sequence")
	}
	if f == nil {
		panic("parallel: MapSeqErr with a nil function")
	}
	return mapSeq(r, "MapSeqErr", seq, opts, nil, f)
}

// mapSeq is the one body of MapSeq (f) and MapSeqErr (fe): the results
// of the items pulled, and the call's error (which MapSeq, with no error
// of its own to report, drops: its result covers a prefix then). Each
// batch calls f or fe directly: MapSeq's items pay no wrapper.
func mapSeq[E, R any](r pool.Runner, call string, seq iter.Seq[E], opts []Option, f func(w *pool.Worker, e E) R, fe func(w *pool.Worker, e E) (R, error)) ([]R, error) {
	// Each batch writes its own slice: the list of batches grows on the
	// puller (on whatever goroutine seq yields from, one at a time)
	// while workers fill earlier ones.
	var outs []*[]R
	total := 0
	err := seqCall(r, call, seq, opts, func(items []E) func(*pool.Worker, int, E) error {
		out := make([]R, len(items))
		outs = append(outs, &out)
		total += len(items)
		if f != nil {
			return func(w *pool.Worker, i int, e E) error { out[i] = f(w, e); return nil }
		}
		return func(w *pool.Worker, i int, e E) error {
			v, err := fe(w, e)
			if err != nil {
				return err // before the store, as in MapErr
			}
			out[i] = v
			return nil
		}
	})
	if err != nil && f == nil {
		return nil, err // MapSeqErr returns no result with its error
	}
	res := make([]R, 0, total)
	for _, o := range outs {
		res = append(res, *o...)
	}
	return res, err
}

// seqCall is the one body of ForSeq, ForSeqErr, MapSeq and MapSeqErr
// (call names it in panics about its options): it pulls seq in batches
// and runs each as a task, calling batch(items) on the puller as each
// batch is cut, then the function it returns for every item of the batch,
// in order, with the item's index in the batch, until the call stops or
// one fails. It returns the call's error.
func seqCall[E any](r pool.Runner, call string, seq iter.Seq[E], opts []Option, batch func(items []E) func(w *pool.Worker, i int, e E) error) error {
	c := parse(call, optsLoop, opts)
	ctl := newControl(&c)
	defer ctl.finish()
	pullSeq(r, seq, &c, ctl, func(items []E) func(w *pool.Worker) {
		each := batch(items)
		return func(w *pool.Worker) {
			flag := &ctl.flag.f
			for i, e := range items {
				if flag.Load() {
					ctl.skip()
					return
				}
				if err := each(w, i, e); err != nil {
					ctl.fail(err)
					return
				}
			}
		}
	})
	return ctl.finish()
}

// seqMaxBatch caps the adaptive batch size of the Seq calls.
const seqMaxBatch = 128

// pullSeq pulls seq on a worker of r, cuts it into batches, and runs
// start(batch) for each as a task of one group (sched.Group), forked by
// the puller (see seqPull.submit). It returns once every batch has ended.
// If batches or seq itself panicked, it then raises the panic that
// happened first, with the others in its Later (see pool.PanicError): a
// seq that panics when told to stop, after a body's panic stopped it,
// loses neither.
func pullSeq[E any](r pool.Runner, seq iter.Seq[E], c *config, ctl *control, start func(items []E) func(w *pool.Worker)) {
	on(r, ctl, func(w *pool.Worker) {
		sw := sched.From[sched.Worker](w)
		s := &seqPull{ctl: ctl, w: sw, pool: sw.Pool(), ahead: 4 * sw.Pool().Workers()}
		size, grow := 1, true
		if c.grain > 0 {
			size, grow = c.grain, false
		}
		if c.body != nil {
			// WithContext: a task per Grain items, one by default, and
			// the look-ahead waits for batches to start (seqPull).
			grow, s.untilStart = false, true
		}
		s.group.Open(s)

		// Whatever happens to the pulling, no batch is left behind: wait
		// for them all, also while a runtime.Goexit in seq unwinds. seq
		// may have blocked without a section, and the worker been
		// handed over meanwhile (sched's stall.md, Y6): Regain first.
		g := sw.Holder()
		finished := false
		defer func() {
			if !finished {
				sw.Regain(g)
				ctl.flag.Stop()
				s.group.Close()
				s.group.Wait(sw)
			}
		}()
		if p := sched.Capture(func() {
			pull(seq, size, grow, ctl, func(items []E) { s.submit(start(items)) })
		}); p != nil {
			ctl.flag.Stop() // skip the batches not started
			s.failed(p)
		}
		sw.Regain(g)
		s.group.Close()
		s.group.Wait(sw)
		finished = true
		if len(s.panics) > 0 {
			panic(sched.Combine(s.panics...))
		}
	})
}

// seqPull is the state of one Seq call's puller and batches.
//
// The look-ahead. The puller keeps at most ahead of the batches it forked
// in flight: before it forks more, it waits for the oldest to end, or,
// under WithContext (untilStart), to start, since a batch that has
// started may wait as long as its bodies wait on the call's context (in
// blocking sections, which let the worker go on): the puller must go on
// starting items then, as errgroup's Go does, or the item whose failure
// would end those waits is never started. Each batch sets a latch of its
// own for that, kept in order in inFlight; the puller waits for it with
// WaitFor, which parks it while its worker runs other tasks, the batches
// first (newest first, the oldest last: which is why it waits for the
// oldest, not for any one, or a long sequence would keep the oldest
// batch waiting behind the newer ones).
//
// A batch that the group skips (it was canceled by a panic) never sets
// its latch; the panic wakes the puller instead:
//
//	L1  The puller stores the latch it is about to wait for in waiting,
//	    then loads the stop flag; if it is set, it does not wait.
//	L2  A failure (failed) sets the flag, then loads waiting and sets
//	    that latch (an extra Set of a latch is a no-op).
//	L3  All four are sequentially consistent: either the puller's load
//	    of the flag comes after its store and it goes on, or failed's load
//	    of waiting comes after the puller's store and it wakes it.
//
// Yields, one at a time, are what touch the puller's own fields (the
// sequence orders them, as iter.Seq requires), on whatever goroutine seq
// calls yield from.
type seqPull struct {
	group      sched.Group
	ctl        *control
	w          *sched.Worker // the puller's worker
	pool       *sched.Pool
	ahead      int
	untilStart bool // WithContext: wait for the oldest batch to start

	inFlight []*sched.Latch              // the latches of the batches in flight, oldest first
	waiting  atomic.Pointer[sched.Latch] // the one the puller waits for (L1)

	mu     sched.Lock // fj's own: a holder waiting in it is no stall
	panics []*sched.Panic
}

// submit runs task as a batch of the call. On the goroutine holding the
// puller's worker, it forks it there and publishes it at once: the
// puller is about to hand control back to seq, which may block (a
// channel that the bodies feed) or run long without forking again, and a
// fork left private would stay on this worker, invisible to idle ones,
// for as long (issue 23). Then it waits while ahead batches are in
// flight. On any other goroutine (seq yielding from a goroutine of its
// own, or from a blocking section: holding no worker of the pool, or
// another one), it queues the batch to the pool, as a fork of the
// puller's task, and does not wait: that goroutine cannot lend its
// worker to the batches while it waits (it holds none, or one that is
// not the puller's), and the puller's worker is held by seq meanwhile.
func (s *seqPull) submit(task func(w *pool.Worker)) {
	l := new(sched.Latch)
	run := func(w *pool.Worker) {
		if s.untilStart {
			l.Set()
		}
		if s.ctl.stopped() {
			s.ctl.skip() // the call stopped before this batch started
		} else {
			task(w)
		}
		if !s.untilStart {
			l.Set()
		}
	}
	if s.pool.Caller() != s.w {
		sched.GoOutside(&s.group, s.pool, run)
		return
	}
	// Caller, above, also took the worker back if the pool handed it
	// over while seq blocked (sched's stall.md, Y6).
	sched.Go(&s.group, s.w, run, nil)
	s.w.Expose()
	s.inFlight = append(s.inFlight, l)
	if len(s.inFlight) >= s.ahead {
		oldest := s.inFlight[0]
		s.inFlight[0] = nil
		s.inFlight = s.inFlight[1:]
		s.waiting.Store(oldest) // L1: before the load of the flag (L3)
		if !s.ctl.flag.f.Load() {
			s.w.WaitFor(oldest)
		}
	}
	s.w.Release() // Y6: seq's code runs next
}

// failed records a panic of a batch (as the group's owner, from the
// worker that ran it) or of seq, stops the call, and wakes the puller
// (L2): the batches the group skips from now on never set their latches.
func (s *seqPull) failed(p *sched.Panic) {
	s.mu.Lock()
	s.panics = append(s.panics, p)
	s.mu.Unlock()
	s.ctl.flag.Stop()
	if l := s.waiting.Load(); l != nil { // L2: after the flag (L3)
		l.Set()
	}
}

// Failed is failed for the group (sched.GroupOwner): batches report only
// panics, as their errors go to the control.
func (s *seqPull) Failed(p *sched.Panic, _ error) { s.failed(p) }

// pull cuts seq into batches and hands each to submit, until seq ends or
// the call stops.
func pull[E any](seq iter.Seq[E], size int, grow bool, ctl *control, submit func(items []E)) {
	if ctl.stopped() {
		ctl.skip()
		return
	}
	batch := make([]E, 0, min(size, seqMaxBatch)) // a huge Grain must not allocate ahead of the items
	flag := &ctl.flag.f
	for e := range seq {
		batch = append(batch, e)
		if len(batch) == size {
			submit(batch)
			if grow && size < seqMaxBatch {
				size *= 2
			}
			batch = make([]E, 0, min(size, seqMaxBatch))
			if ctl.stopped() {
				ctl.skip()
				return
			}
		} else if flag.Load() {
			ctl.skip()
			return
		}
	}
	if len(batch) > 0 {
		if ctl.stopped() {
			ctl.skip()
			return
		}
		submit(batch)
	}
}
