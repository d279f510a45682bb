package sched

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
)

// Capturing panics and Goexits. A task runs on a worker's goroutine, which
// has nobody to return a panic to: fj recovers it where it happens and
// raises it again in the goroutine that joins the task. This file is the
// one place that recovers (with the joins' deferred test, job.go's
// unwound, which must call recover in the join's own frame): Capture for
// code run inline (a join's own half, a function run on the caller's
// worker), Guard for a task's body run by a worker that took it from a
// queue, where a runtime.Goexit must be reported too, and Recover for the
// one caller above the scheduler that replaces a panic by another. It is
// also the one place that combines several panics into the one a joiner
// raises: Combine, on InOrder.

// Panic is one captured panic (or Goexit) of a task: Err is what its
// joiner raises, made by the package that owns the error types (pool's
// *PanicError, see SetErrors), and Seq numbers captures in the order they
// happened, process-wide, so that of several panics of one join the first
// is well defined (Combine).
type Panic struct {
	Err error
	Seq uint64
}

// panicSeq numbers captures. Panics are rare: one atomic add each is
// nothing.
var panicSeq atomic.Uint64

// The error types are pool's (pool.PanicError, pool.ErrGoexit): pool
// registers what makes and takes them apart at init (SetErrors), so that
// values raised in joiners are its documented types while the capture and
// the combining are written once, here. The defaults serve this package's
// own tests, which run without pool.
var (
	panicError = func(r any, seq uint64) (uint64, error) {
		return seq, fmt.Errorf("panic: %v\n\n%s", r, debug.Stack())
	}
	goexitError = func(aborted bool, seq uint64) error {
		if aborted {
			return fmt.Errorf("task aborted by runtime.Goexit")
		}
		return fmt.Errorf("task called runtime.Goexit")
	}
	splitError   = func(err error) ([]*Panic, error) { return nil, err }
	attachErrors = func(first error, later []error) error { return first }
)

// SetErrors registers the errors fj raises. panicErr turns a recovered
// value into the error the joiner raises and returns its sequence number
// (called in the deferred function that recovered it, so that it can
// record the panicking stack; seq is a fresh number for a new panic; a
// value that already is such an error, re-raised by an inner join, must
// come back as is, with the number it got when it was first captured, so
// that "first" means first to happen). goexitErr makes the report of a
// task that called runtime.Goexit (aborted: one that was cut short by
// another task's Goexit on the same goroutine), numbered seq, which it
// must keep as panicErr's errors do when it is re-raised. split returns
// the later panics attached to an error, each with its number, and the
// error without them (a copy, if it had any); attach returns first with later
// attached in their place (replacing any it had), reachable by errors.As.
// Package pool calls it once, at init.
func SetErrors(panicErr func(r any, seq uint64) (uint64, error), goexitErr func(aborted bool, seq uint64) error,
	split func(err error) ([]*Panic, error), attach func(first error, later []error) error) {
	panicError, goexitError, splitError, attachErrors = panicErr, goexitErr, split, attach
}

// Capture calls f and returns nil if f returned, or the captured panic,
// whatever its value: a nil *PanicError, or panic(nil) under
// GODEBUG=panicnil=1, where recover returns nil. That is told apart from
// runtime.Goexit, during which recover also returns nil, by the only
// reliable sign there is: after a recovered panic control comes back here;
// after a Goexit it never does, and the unwinding goes on through the
// caller's frames to the task's Guard, which reports it.
func Capture(f func()) (p *Panic) {
	normal := false
	defer func() {
		if !normal {
			p = recovered(recover())
		}
	}()
	f()
	normal = true
	return nil
}

// unwindingGoexit reports, in a deferred function whose recover returned
// nil, whether a runtime.Goexit is unwinding the goroutine rather than
// panic(nil) under GODEBUG=panicnil=1: whichever of runtime.Goexit and
// runtime.gopanic is nearer on the stack called the deferred function (a
// panic raised while a Goexit unwinds is nearer than the Goexit). For the
// one capture that cannot split itself in two frames as Capture does
// (Group.RunOpener, G6); only a panic or Goexit pays for it.
func unwindingGoexit() bool {
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "runtime.Goexit":
			return true
		case "runtime.gopanic":
			return false
		}
		if !more {
			return false
		}
	}
}

// recovered is the Panic for r, a value a deferred function just
// recovered (so that the stack recorded is still the panicking one).
func recovered(r any) *Panic {
	seq, err := panicError(r, panicSeq.Add(1))
	return &Panic{Err: err, Seq: seq}
}

// Guard runs f, the body of a task that w took from a deque or the
// injector (never one its joiner runs inline), and calls done exactly once
// with how f ended: nil, a captured panic, or a runtime.Goexit. A Goexit
// cannot be stopped; Guard reports it to done before the unwinding goes on
// past it, so the task's joiner learns of it, and the worker carries on in
// a fresh goroutine (carrier.go). The first Goexit reported on a goroutine
// is the task that called it; every further report on the way out, for
// tasks that were running below it on the same goroutine (a join that took
// back the task that called Goexit), says they were aborted by it.
func (w *Worker) Guard(f func(), done func(p *Panic)) {
	g := w.Holder() // stall.md, Y6: the program's code runs next
	returned := false
	defer func() {
		if !returned {
			w.Regain(g) // Y6: goexitReport reads the holder's carrier
			done(w.goexitPanic())
		}
	}()
	p := Capture(f)
	returned = true
	w.Regain(g) // Y6: done may touch w (a task block's count on its home, G7)
	done(p)
}

// goexitPanic captures the runtime.Goexit that is unwinding the task
// running on w, in a deferred function: the report its joiners raise
// (goexitReport). The caller holds w again (stall.md, Y6: Regain).
func (w *Worker) goexitPanic() *Panic {
	seq := panicSeq.Add(1)
	return &Panic{Err: w.goexitReport(seq), Seq: seq}
}

// goexitReport returns the report for a task that a Goexit is unwinding,
// captured as number seq.
func (w *Worker) goexitReport(seq uint64) error {
	// The flag belongs to the goroutine being unwound, the carrier
	// holding w: other carriers of w, which may run while this one is
	// parked mid-unwinding, have their own.
	c := w.cur
	if c.goexiting {
		return goexitError(true, seq)
	}
	c.goexiting = true
	return goexitError(false, seq)
}

// Combine returns the error to raise for the panics of one join or call:
// the one captured first (lowest Seq), with every other one attached, in
// the order they were captured. Panics that already carry others (a
// nested join's, re-raised) are taken apart first, so that what is
// attached is flat: one level, every panic once, in capture order,
// whatever the shape of the joins that met them (InOrder). Nil entries
// are skipped; it returns nil if all are nil, and a lone panic as it is.
//
// It is the one place where fj combines panics: a join whose halves both
// panicked (unwound), parallel's ForSeq, and pool.PanicError's Later are
// all made here; taskblock's Panics list is InOrder's.
func Combine(ps ...*Panic) error {
	var only *Panic
	n := 0
	for _, p := range ps {
		if p != nil {
			only = p
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case 1:
		// Already flat: its later panics, if any, were attached here.
		return only.Err
	}
	all := InOrder(ps)
	if len(all) == 1 {
		return all[0].Err // one panic, met twice (a future joined twice)
	}
	later := make([]error, len(all)-1)
	for i, p := range all[1:] {
		later[i] = p.Err
	}
	return attachErrors(all[0].Err, later)
}

// InOrder returns the panics of ps, and those attached to them, each on
// its own (without the panics attached to it) and in the order they were
// captured. Nil entries are left out, and so are repeats of one capture
// (the same panic met twice, a future joined by two tasks of one join):
// a capture's number is unique to it (panicSeq), and kept by every copy
// and re-raise of its error (SetErrors). Number 0 is no capture's: it is
// that of an error fj did not make (a *pool.PanicError a user built and
// panicked with), and such entries are all kept.
func InOrder(ps []*Panic) []*Panic {
	var all []*Panic
	for _, p := range ps {
		if p == nil {
			continue
		}
		later, err := splitError(p.Err)
		all = append(all, &Panic{Err: err, Seq: p.Seq})
		all = append(all, later...)
	}
	slices.SortStableFunc(all, func(a, b *Panic) int { return cmp.Compare(a.Seq, b.Seq) })
	return slices.CompactFunc(all, func(a, b *Panic) bool { return a.Seq == b.Seq && a.Seq != 0 })
}

// Recover calls f and returns what f panicked with, and whether it
// panicked (also for panic(nil) under GODEBUG=panicnil=1, where the value
// is nil). A runtime.Goexit in f is not stopped: Recover does not return
// then. It is for code above the scheduler that must replace one panic by
// another (taskblock raises a block's panics instead of the report of a
// Goexit that ended the function holding the block), so that recover is
// called in this package only, where captures are.
func Recover(f func()) (r any, panicked bool) {
	normal := false
	defer func() {
		if !normal {
			r, panicked = recover(), true
		}
	}()
	f()
	normal = true
	return nil, false
}
