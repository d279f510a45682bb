package pool

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/forkjoin/fj/internal/sched"
)

// PanicError is a panic raised by a task, captured on the goroutine where
// it happened and raised again in the goroutine that waits for the task (a
// Future's Join, the end of a task block, the caller of Invoke or of a
// parallel algorithm). Re-panicking on another goroutine would lose the
// place of the original panic, so PanicError carries it: its Error text
// shows the original value and the stack of the goroutine at the moment of
// the panic, which is what the runtime prints if nobody recovers.
//
// A PanicError that passes through further joins on its way up is raised
// as is, not wrapped again, so the stack always points at the origin.
// Whatever the value, even a nil *PanicError or panic(nil) under
// GODEBUG=panicnil=1, the joiner sees a panic.
//
// When several tasks of one join panic (both halves of a Join, several
// calls of a JoinAll), the joiner raises the panic that was captured
// first, with all the others in Later, in the order they were captured:
// one flat list, whatever the nesting of the joins they came through (a
// JoinAll's calls, a Join in a half of a Join). A panic re-raised by an
// inner join, and the report of a runtime.Goexit, keep the place of their
// first capture. errors.Is and errors.As look into all of them.
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
	// runtime.Goexit it is ErrGoexit (or ErrAbortedByGoexit).
	Value any
	// Stack is the stack trace of the panicking goroutine, captured in the
	// deferred call that recovered the panic, so its top frames are the
	// panic and the code that raised it.
	Stack []byte
	// Later holds the panics of other tasks of the same join, and of the
	// joins nested in it, that were captured after this one, if any, in
	// the order they happened. Its entries have no Later of their own.
	Later []*PanicError

	seq uint64 // when it was captured (internal/sched, capture.go)
}

// Error returns the original panic value and the stack where it was raised,
// followed by the values of the later panics, if any.
func (e *PanicError) Error() string {
	s := fmt.Sprintf("%v\n\n[recovered by fj in a worker; stack of the original panic:]\n%s", e.Value, e.Stack)
	for i, l := range e.Later {
		s += fmt.Sprintf("\n[later panic %d of the same join: %v]", i+1, l.Value)
	}
	return s
}

// Unwrap returns the panic value if it is an error, and the later panics,
// so that errors.Is and errors.As see through the PanicError to all of
// them.
func (e *PanicError) Unwrap() []error {
	var errs []error
	if err, ok := e.Value.(error); ok {
		errs = append(errs, err)
	}
	for _, l := range e.Later {
		errs = append(errs, l)
	}
	return errs
}

// ErrGoexit is the Value of the PanicError reported for a task that called
// runtime.Goexit (for example through testing.T.FailNow): the task's
// goroutine is a pool worker and cannot be ended on the task's behalf, so
// the call is reported to the task's waiter instead, and the worker
// carries on in a fresh goroutine.
var ErrGoexit = errors.New("task called runtime.Goexit")

// ErrAbortedByGoexit is the Value of the PanicError reported for a task
// that did not call runtime.Goexit itself but was running on the same
// worker goroutine, below a task that did (a join running what it waits
// for inline): the Goexit unwinds every frame of that goroutine. It wraps
// ErrGoexit, so errors.Is(err, ErrGoexit) holds for both.
var ErrAbortedByGoexit error = abortedError{}

type abortedError struct{}

func (abortedError) Error() string {
	return "task aborted: a task run on the same worker goroutine called runtime.Goexit"
}

func (abortedError) Unwrap() error { return ErrGoexit }

// The scheduler captures and combines panics; these make the values it
// raises and take them apart.
func init() {
	sched.SetErrors(recovered, goexitError, split, attach)
}

// recovered is the PanicError for a value recovered from a panic, called
// in the deferred function that recovered it (so that the stack it records
// is the panicking one). A PanicError re-raised by an inner join passes as
// is, with the number of its first capture.
func recovered(r any, seq uint64) (uint64, error) {
	if pe, ok := r.(*PanicError); ok && pe != nil {
		return pe.seq, pe
	}
	return seq, &PanicError{Value: r, Stack: debug.Stack(), seq: seq}
}

// goexitError is the report of a Goexit, captured as number seq: a join
// that re-raises it and an outer one that captures it again keep that
// number, so the report keeps its place among the panics of the outer
// join (it once had 0, and came first whatever had happened before it).
func goexitError(aborted bool, seq uint64) error {
	v := ErrGoexit
	if aborted {
		v = ErrAbortedByGoexit
	}
	return &PanicError{Value: v, Stack: debug.Stack(), seq: seq}
}

// split returns the panics of err's Later, each with its number and
// itself taken apart, and err without its Later (a copy, if it has any: a
// PanicError that others hold is never modified): what the scheduler
// combines (sched.Combine) is flat.
func split(err error) ([]*sched.Panic, error) {
	pe, ok := err.(*PanicError)
	if !ok || pe == nil || len(pe.Later) == 0 {
		return nil, err
	}
	c := *pe
	c.Later = nil
	later := make([]*sched.Panic, 0, len(pe.Later))
	for _, l := range pe.Later {
		if l == nil {
			continue // only in one a user built
		}
		ll, e := split(l)
		later = append(later, &sched.Panic{Err: e, Seq: l.seq})
		later = append(later, ll...)
	}
	return later, &c
}

// attach returns a copy of first with later as its Later: the first panic
// is raised as is (its value and stack), and a PanicError that others
// hold is never modified.
func attach(first error, later []error) error {
	pe, ok := first.(*PanicError)
	if !ok || pe == nil {
		return first
	}
	c := *pe
	c.Later = make([]*PanicError, 0, len(later))
	for _, l := range later {
		if lp, ok := l.(*PanicError); ok {
			c.Later = append(c.Later, lp)
		}
	}
	return &c
}
