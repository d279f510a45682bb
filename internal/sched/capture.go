package sched

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
)

// Capturing panics and Goexits. A task runs on a worker's goroutine, which
// has nobody to return a panic to: fj recovers it where it happens and
// raises it again in the goroutine that joins the task. This file is the
// one place that recovers: Capture for code run inline (a join's own half,
// a function run on the caller's worker), Guard for a task's body run by a
// worker that took it from a queue, where a runtime.Goexit must be
// reported too.

// Panic is one captured panic (or Goexit) of a task: Err is what its
// joiner raises, made by the package that owns the error types (pool's
// *PanicError, see SetErrors), and Seq numbers captures in the order they
// happened, process-wide, so that of several panics of one join the first
// is well defined (First).
type Panic struct {
	Err error
	Seq uint64
}

// panicSeq numbers captures. Panics are rare: one atomic add each is
// nothing.
var panicSeq atomic.Uint64

// The error types are pool's (pool.PanicError, pool.ErrGoexit): pool
// registers their constructors at init (SetErrors), so that values raised
// in joiners are its documented types while the capture is written once,
// here. The defaults serve this package's own tests, which run without
// pool.
var (
	panicError = func(r any, seq uint64) (uint64, error) {
		return seq, fmt.Errorf("panic: %v\n\n%s", r, debug.Stack())
	}
	goexitError = func(aborted bool) error {
		if aborted {
			return fmt.Errorf("task aborted by runtime.Goexit")
		}
		return fmt.Errorf("task called runtime.Goexit")
	}
	attachErrors = func(first error, later []error) error { return first }
)

// SetErrors registers the constructors of the errors fj raises: panicErr
// turns a recovered value into the error the joiner raises and returns
// its sequence number (called in the deferred function that recovered it,
// so that it can record the panicking stack; seq is a fresh number for a
// new panic; a value that already is such an error, re-raised by an inner
// join, must come back as is, with the number it got when it was first
// captured, so that "first" means first to happen); goexitErr makes the report of a task
// that called runtime.Goexit (aborted: one that was cut short by another
// task's Goexit on the same goroutine); attach returns first with later
// panics of the same join attached, reachable by errors.As. Package pool
// calls it once, at init.
func SetErrors(panicErr func(r any, seq uint64) (uint64, error), goexitErr func(aborted bool) error, attach func(first error, later []error) error) {
	panicError, goexitError, attachErrors = panicErr, goexitErr, attach
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
	returned := false
	defer func() {
		if !returned {
			done(&Panic{Err: w.goexitReport(), Seq: panicSeq.Add(1)})
		}
	}()
	p := Capture(f)
	returned = true
	done(p)
}

// goexitReport returns the report for a task that a Goexit is unwinding.
func (w *Worker) goexitReport() error {
	// The flag belongs to the goroutine being unwound, the carrier
	// holding w: other carriers of w, which may run while this one is
	// parked mid-unwinding, have their own.
	c := w.cur
	if c.goexiting {
		return goexitError(true)
	}
	c.goexiting = true
	return goexitError(false)
}

// First returns the error to raise for the panics of one join: the one
// captured first (lowest Seq), with the others attached in the order they
// were captured. Nil entries are skipped; it returns nil if all are nil.
func first(ps ...*Panic) error {
	var first *Panic
	n := 0
	for _, p := range ps {
		if p == nil {
			continue
		}
		n++
		if first == nil || p.Seq < first.Seq {
			first = p
		}
	}
	if first == nil {
		return nil
	}
	if n == 1 {
		return first.Err
	}
	later := make([]*Panic, 0, n-1)
	for _, p := range ps {
		if p != nil && p != first {
			later = append(later, p)
		}
	}
	// Few panics per join: an insertion sort by Seq.
	for i := 1; i < len(later); i++ {
		for k := i; k > 0 && later[k].Seq < later[k-1].Seq; k-- {
			later[k], later[k-1] = later[k-1], later[k]
		}
	}
	errs := make([]error, len(later))
	for i, p := range later {
		errs[i] = p.Err
	}
	return attachErrors(first.Err, errs)
}
