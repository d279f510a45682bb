package taskblock

import (
	"fmt"
	"strings"

	"github.com/forkjoin/fj/pool"
)

// Panics is the value Define and DefineErr panic with when the body or
// tasks of the block panicked: every captured panic, in the order they
// happened, each with its value and the stack where it was raised (N4411's
// exception_list). It is an error, and errors.As and errors.Is look into
// each panic (and into its value, if that is an error):
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
type Panics []*pool.PanicError

// Error lists the panic values and, after them, where each was raised.
func (ps Panics) Error() string {
	var b strings.Builder
	if len(ps) == 1 {
		b.WriteString("taskblock: a task panicked: ")
		b.WriteString(ps[0].Error())
		return b.String()
	}
	fmt.Fprintf(&b, "taskblock: %d tasks panicked:", len(ps))
	for i, p := range ps {
		fmt.Fprintf(&b, "\n  [%d] %v", i+1, p.Value)
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
		errs[i] = p
	}
	return errs
}
