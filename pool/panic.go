package pool

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

// Capture turns the result of recover() into a *PanicError, for the
// Runnable implementations of the layers above the pool. It must be called
// from a deferred function of code running on w, with that function's
// recover() as r and with returned telling whether the guarded code ran to
// completion, as in
//
//	func (j *job) Run(w *pool.Worker) {
//		returned := false
//		defer func() {
//			j.err = w.Capture(recover(), returned)
//			j.done.Set()
//		}()
//		j.f(w)
//		returned = true
//	}
//
// It returns nil if the code returned normally, r itself if r is already a
// *PanicError (a panic re-raised by an inner join keeps its origin), and
// otherwise a new PanicError holding r and the current stack.
//
// A deferred call with returned false and r nil is runtime.Goexit
// unwinding. It cannot be stopped, but it can be reported, and the
// deferred function can still signal completion, so no waiter is left
// hanging. The first capture of a Goexit on w reports ErrGoexit: that is
// the task that called it. Captures further out on the same goroutine
// report ErrAbortedByGoexit: those are tasks that were waiting on w.
func (w *Worker) Capture(r any, returned bool) *PanicError {
	if returned && r == nil {
		return nil
	}
	if pe, ok := r.(*PanicError); ok {
		return pe
	}
	if r == nil {
		// The flag belongs to the goroutine being unwound, the carrier
		// holding w: other carriers of w, which may run while this one is
		// parked mid-unwinding, have their own.
		if c := w.cur; c.goexiting {
			r = ErrAbortedByGoexit
		} else {
			c.goexiting = true
			r = ErrGoexit
		}
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}
