package sched

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic raised by a task, captured on the goroutine where it
// happened and raised again in the goroutine that waits for the task (a
// Future's Join, the end of a task block, the caller of Invoke or of a
// parallel algorithm). Re-panicking on another goroutine would lose the
// place of the original panic, so PanicError carries it: its Error text
// shows the original value and the stack of the goroutine at the moment of
// the panic, which is what the runtime prints if nobody recovers.
//
// A PanicError that passes through further joins on its way up is raised
// as is, not wrapped again, so the stack always points at the origin.
//
//	defer func() {
//		if r := recover(); r != nil {
//			var pe *pool.PanicError
//			if err, ok := r.(error); ok && errors.As(err, &pe) {
//				log.Printf("task failed: %v", pe.Value)
//			}
//		}
//	}()
type PanicError struct {
	// Value is the value the task passed to panic. For a task that called
	// runtime.Goexit it is ErrGoexit.
	Value any
	// Stack is the stack trace of the panicking goroutine, captured in the
	// deferred call that recovered the panic, so its top frames are the
	// panic and the code that raised it.
	Stack []byte
}

// ErrGoexit is the Value of the PanicError reported for a task that called
// runtime.Goexit (for example through testing.T.FailNow): the task's
// goroutine is a pool worker and cannot be ended on the task's behalf, so
// the call is reported to the task's waiter instead, and the worker
// carries on in a fresh goroutine.
var ErrGoexit error = goexitError{}

type goexitError struct{}

func (goexitError) Error() string { return "task called runtime.Goexit" }

// Error returns the original panic value and the stack where it was raised.
func (e *PanicError) Error() string {
	return fmt.Sprintf("%v\n\n[recovered by fj in a worker; stack of the original panic:]\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through the PanicError to it.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// ErrAbortedByGoexit is the Value of the PanicError reported for a task
// that did not call runtime.Goexit itself but was running on the same
// worker goroutine, waiting in a join, when a task it ran meanwhile did.
// The Goexit unwinds every frame of that goroutine, including the waiting
// task's; its waiter learns that it was cut short, and why. It wraps
// ErrGoexit, so errors.Is(err, ErrGoexit) holds for both.
var ErrAbortedByGoexit error = abortedError{}

type abortedError struct{}

func (abortedError) Error() string {
	return "task aborted: a task run on the same worker while it waited called runtime.Goexit"
}

func (abortedError) Unwrap() error { return ErrGoexit }

// Protect calls f and returns nil if f returned, or the *PanicError that
// describes its panic. Every panic counts, whatever its value: a nil
// *PanicError, or panic(nil) under GODEBUG=panicnil=1 (where recover
// returns nil). That is told apart from runtime.Goexit, during which
// recover also returns nil, by the only reliable sign there is: after a
// recovered panic, control comes back to Protect's caller; after a Goexit
// it never does, and the unwinding goes on through the caller's frames.
//
// A panic value that is already a *PanicError (a panic re-raised by an
// inner join) is returned as is, so that its stack stays the origin's.
func Protect(f func()) (pe *PanicError) {
	normal := false
	defer func() {
		if !normal {
			pe = Recovered(recover())
		}
	}()
	f()
	normal = true
	return nil
}

// Recovered turns a value recovered from a panic into the *PanicError to
// raise in the joiner. It must be called in the deferred function that
// recovered r, so that the stack it records is the panicking one.
func Recovered(r any) *PanicError {
	if pe, ok := r.(*PanicError); ok && pe != nil {
		return pe
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// Try calls f on w's goroutine and stores in *perr how it ended, before
// returning or before a Goexit in f unwinds past it: nil if f returned, the
// panic as with Protect, and for a runtime.Goexit a *PanicError whose Value
// is ErrGoexit. The Goexit cannot be stopped; the task's own deferred calls
// (which signal its waiter) still run, after Try has stored the error. The
// first Goexit reported on a goroutine is the task that called it; every
// further report on the way out, for tasks that were waiting on it, is
// ErrAbortedByGoexit.
func (w *Worker) Try(perr **PanicError, f func()) {
	done := false
	defer func() {
		if !done {
			*perr = w.goexitError()
		}
	}()
	*perr = Protect(f)
	done = true
}

// GoexitError returns the report for a task that a runtime.Goexit is
// unwinding, as Try records it (ErrGoexit for the first task on the
// goroutine, ErrAbortedByGoexit after that), for layers that detect the
// Goexit themselves.
func (w *Worker) GoexitError() *PanicError { return w.goexitError() }

// goexitError returns the report for a task that a Goexit is unwinding.
func (w *Worker) goexitError() *PanicError {
	// The flag belongs to the goroutine being unwound, the carrier
	// holding w: other carriers of w, which may run while this one is
	// parked mid-unwinding, have their own.
	r := ErrGoexit
	if c := w.cur; c.goexiting {
		r = ErrAbortedByGoexit
	} else {
		c.goexiting = true
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}
