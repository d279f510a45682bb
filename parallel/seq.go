package parallel

import (
	"iter"

	"github.com/forkjoin/fj/forkjoin"
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
	c := makeConfig(opts)
	ctl := newControl(&c)
	defer ctl.unwatch()
	pullSeq(r, seq, &c, ctl, func(items []E) func(w *pool.Worker) {
		return func(w *pool.Worker) {
			flag := &ctl.flag.f
			for _, e := range items {
				if flag.Load() {
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
// failed first.
func ForSeqErr[E any](r pool.Runner, seq iter.Seq[E], body func(w *pool.Worker, e E) error, opts ...Option) error {
	if seq == nil {
		panic("parallel: ForSeqErr with a nil sequence")
	}
	if body == nil {
		panic("parallel: ForSeqErr with a nil body")
	}
	c := makeConfig(opts)
	ctl := newControl(&c)
	defer ctl.unwatch()
	pullSeq(r, seq, &c, ctl, func(items []E) func(w *pool.Worker) {
		return func(w *pool.Worker) {
			flag := &ctl.flag.f
			for _, e := range items {
				if flag.Load() {
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
	c := makeConfig(opts)
	ctl := newControl(&c)
	defer ctl.unwatch()
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
// ended, re-raising the first panic of a batch or the seq's own.
func pullSeq[E any](r pool.Runner, seq iter.Seq[E], c *config, ctl *control, start func(items []E) func(w *pool.Worker)) {
	on(r, func(w *pool.Worker) {
		size, grow := 1, true
		if c.grain > 0 {
			size, grow = c.grain, false
		}
		ahead := 4 * w.Pool().Workers() // batches in flight before the puller helps
		var pending []*forkjoin.Future[struct{}]
		var first any // the first batch panic, in batch order
		join := func(f *forkjoin.Future[struct{}]) {
			defer func() {
				if r := recover(); r != nil {
					if first == nil {
						first = r
					}
					ctl.flag.Stop()
				}
			}()
			f.Join(w)
		}
		submit := func(items []E) {
			task := start(items)
			pending = append(pending, forkjoin.Fork(w, func(w *pool.Worker) struct{} {
				if ctl.stopped() {
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
		// them all, and only then let a panic of seq itself go on.
		returned := false
		defer func() {
			if !returned {
				ctl.flag.Stop() // seq panicked: skip the batches not started
			}
			for _, f := range pending {
				join(f)
			}
			if returned && first != nil {
				panic(first)
			}
		}()
		if !ctl.stopped() {
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
						break
					}
				} else if flag.Load() {
					break
				}
			}
			if len(batch) > 0 && !ctl.stopped() {
				submit(batch)
			}
		}
		returned = true
	})
}
