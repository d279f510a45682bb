package parallel

import (
	"iter"

	"github.com/forkjoin/fj/forkjoin"
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
// n. At most a few batches per worker are pulled ahead of the workers: the
// puller runs batches itself when they pile up, so memory stays bounded
// whatever the length of seq.
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
	c := parse("ForSeq", optsLoop, opts)
	ctl := newControl(&c)
	defer ctl.finish()
	pullSeq(r, seq, &c, ctl, func(items []E) func(w *pool.Worker) {
		return func(w *pool.Worker) {
			flag := &ctl.flag.f
			for _, e := range items {
				if flag.Load() {
					ctl.skip()
					return
				}
				body(w, e)
			}
		}
	})
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
	c := parse("ForSeqErr", optsLoop, opts)
	ctl := newControl(&c)
	defer ctl.finish()
	pullSeq(r, seq, &c, ctl, func(items []E) func(w *pool.Worker) {
		return func(w *pool.Worker) {
			flag := &ctl.flag.f
			for _, e := range items {
				if flag.Load() {
					ctl.skip()
					return
				}
				if err := body(w, e); err != nil {
					ctl.fail(err)
					return
				}
			}
		}
	})
	return ctl.finish()
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
	c := parse("MapSeq", optsLoop, opts)
	ctl := newControl(&c)
	defer ctl.finish()
	// Each batch writes its own slice: the list of batches grows on the
	// puller while workers fill earlier ones.
	var outs []*[]R
	total := 0
	pullSeq(r, seq, &c, ctl, func(items []E) func(w *pool.Worker) {
		out := make([]R, len(items))
		outs = append(outs, &out)
		total += len(items)
		return func(w *pool.Worker) {
			flag := &ctl.flag.f
			for i, e := range items {
				if flag.Load() {
					ctl.skip()
					return
				}
				out[i] = f(w, e)
			}
		}
	})
	res := make([]R, 0, total)
	for _, o := range outs {
		res = append(res, *o...)
	}
	return res
}

// seqMaxBatch caps the adaptive batch size of the Seq calls.
const seqMaxBatch = 128

// pullSeq pulls seq on a worker of r, cuts it into batches, and runs
// start(batch) for each as a forked task. It returns once every batch has
// ended. If batches or seq itself panicked, it then raises the panic that
// happened first, with the others in its Later (see pool.PanicError): a
// seq that panics when told to stop, after a body's panic stopped it,
// loses neither.
func pullSeq[E any](r pool.Runner, seq iter.Seq[E], c *config, ctl *control, start func(items []E) func(w *pool.Worker)) {
	on(r, func(w *pool.Worker) {
		size, grow := 1, true
		if c.grain > 0 {
			size, grow = c.grain, false
		}
		ahead := 4 * w.Pool().Workers() // batches in flight before the puller helps
		var pending []*forkjoin.Future[struct{}]
		var panics []*sched.Panic
		join := func(f *forkjoin.Future[struct{}]) {
			// A batch's panic comes back from Join as the PanicError
			// first captured, with its number: Capture keeps it.
			if p := sched.Capture(func() { f.Join(w) }); p != nil {
				panics = append(panics, p)
				ctl.flag.Stop()
			}
		}
		submit := func(items []E) {
			task := start(items)
			pending = append(pending, forkjoin.Fork(w, func(w *pool.Worker) struct{} {
				if ctl.stopped() {
					ctl.skip()
					return struct{}{} // the call stopped before this batch started
				}
				returned := false
				defer func() {
					if !returned {
						ctl.flag.Stop()
					}
				}()
				task(w)
				returned = true
				return struct{}{}
			}))
			for len(pending) >= ahead {
				join(pending[0])
				pending[0] = nil
				pending = pending[1:]
			}
		}

		// Whatever happens to the pulling, no batch is left behind: join
		// them all, also while a runtime.Goexit in seq unwinds.
		finished := false
		defer func() {
			if !finished {
				ctl.flag.Stop()
				for _, f := range pending {
					join(f)
				}
			}
		}()
		if p := sched.Capture(func() { pull(seq, size, grow, ctl, submit) }); p != nil {
			ctl.flag.Stop() // skip the batches not started
			panics = append(panics, p)
		}
		for _, f := range pending {
			join(f)
		}
		finished = true
		if len(panics) > 0 {
			panic(sched.Combine(panics...))
		}
	})
}

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
