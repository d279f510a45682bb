package pool

import "github.com/forkjoin/fj/internal/sched"

// PanicError is a panic raised by a task, captured on the goroutine where
// it happened and raised again in the goroutine that waits for the task (a
// Future's Join, the end of a task block, the caller of Invoke or of a
// parallel algorithm). Re-panicking on another goroutine would lose the
// place of the original panic, so PanicError carries it:
//
//	type PanicError struct {
//		Value any    // what the task passed to panic (ErrGoexit for runtime.Goexit)
//		Stack []byte // the panicking goroutine's stack, captured where it was recovered
//	}
//
// Its Error text shows the original value and that stack, which is what
// the runtime prints if nobody recovers, and Unwrap returns Value if it is
// an error, so errors.Is and errors.As see through it. A PanicError that
// passes through further joins on its way up is raised as is, not wrapped
// again, so the stack always points at the origin. Whatever the value, even
// a nil *PanicError or panic(nil) under GODEBUG=panicnil=1, the joiner sees
// a panic.
//
//	defer func() {
//		if r := recover(); r != nil {
//			var pe *pool.PanicError
//			if err, ok := r.(error); ok && errors.As(err, &pe) {
//				log.Printf("task failed: %v", pe.Value)
//			}
//		}
//	}()
type PanicError = sched.PanicError

// ErrGoexit is the Value of the PanicError reported for a task that called
// runtime.Goexit (for example through testing.T.FailNow): the task's
// goroutine is a pool worker and cannot be ended on the task's behalf, so
// the call is reported to the task's waiter instead, and the worker
// carries on in a fresh goroutine.
var ErrGoexit = sched.ErrGoexit

// ErrAbortedByGoexit is the Value of the PanicError reported for a task
// that did not call runtime.Goexit itself but was waiting on the same
// worker goroutine when a task run meanwhile did: the Goexit unwinds every
// frame of that goroutine. It wraps ErrGoexit, so errors.Is(err, ErrGoexit)
// holds for both.
var ErrAbortedByGoexit = sched.ErrAbortedByGoexit
