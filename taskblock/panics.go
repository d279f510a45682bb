package taskblock

import (
	"errors"
	"fmt"
	"strings"

	"github.com/forkjoin/fj/pool"
)

// Panics is the value Define and DefineErr panic with when the body or
// tasks of the block panicked: every captured panic, in the order they
// happened, each with its value, the stack where it was raised, and whether
// it was the body's (N4411's exception_list). The list is flat: a task
// whose nested joins panicked several times (a *pool.PanicError with a
// Later) contributes each of those panics at its place in the order, and
// none of them has a Later. A panic re-raised by a nested join, and the
// report of a runtime.Goexit, keep the place of their first capture. It
// is an error, and errors.As and errors.Is look into each panic (and into
// its value, if that is an error):
//
//	defer func() {
//		r := recover()
//		var ps taskblock.Panics
//		if err, ok := r.(error); ok && errors.As(err, &ps) {
//			for _, p := range ps {
//				log.Printf("task panicked: %v", p.Value)
//			}
//		}
//	}()
type Panics []Panic

// Panic is one panic of a block: a *pool.PanicError (Value and Stack are
// its fields) and where it happened.
type Panic struct {
	*pool.PanicError
	// Body is true for a panic (or runtime.Goexit) of the block's body,
	// false for one of its tasks.
	Body bool
}

// where says in words whose panic p is.
func (p Panic) where() string {
	switch {
	case p.Body && errors.Is(p.PanicError, pool.ErrGoexit):
		return "the body called runtime.Goexit"
	case p.Body:
		return "the body panicked"
	case errors.Is(p.PanicError, pool.ErrGoexit):
		return "a task called runtime.Goexit"
	}
	return "a task panicked"
}

// Error lists the panic values, saying for each whether the body or a task
// raised it, and, after them, where each was raised.
func (ps Panics) Error() string {
	var b strings.Builder
	if len(ps) == 1 {
		fmt.Fprintf(&b, "taskblock: %s: %s", ps[0].where(), ps[0].PanicError.Error())
		return b.String()
	}
	fmt.Fprintf(&b, "taskblock: %d panics:", len(ps))
	for i, p := range ps {
		fmt.Fprintf(&b, "\n  [%d] %s: %v", i+1, p.where(), p.Value)
	}
	for i, p := range ps {
		fmt.Fprintf(&b, "\n\n[%d] %v\n%s", i+1, p.Value, p.Stack)
	}
	return b.String()
}

// Unwrap returns the captured panics as errors, for errors.Is and errors.As.
func (ps Panics) Unwrap() []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p.PanicError
	}
	return errs
}
