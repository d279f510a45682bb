package pool_test

import (
	"math"
	"strings"
	"testing"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// TestWithDequeCapacityLimit checks that a capacity above the deque's limit
// panics at the option, naming the option and the limit, and that the
// limit itself is accepted by the option.
func TestWithDequeCapacityLimit(t *testing.T) {
	for _, n := range []int{1<<30 + 1, min(1<<31, math.MaxInt), min(1<<62+5, math.MaxInt)} {
		r := fjtest.Catch(func() { pool.WithDequeCapacity(n) })
		msg := fjtest.PanicMessage(r)
		if !strings.Contains(msg, "WithDequeCapacity") || !strings.Contains(msg, "1<<30") {
			t.Errorf("WithDequeCapacity(%d): panic %q, want one naming the option and the limit 1<<30", n, msg)
		}
	}
	if r := fjtest.Catch(func() { pool.WithDequeCapacity(1 << 30) }); r != nil {
		t.Errorf("WithDequeCapacity(1<<30) panicked: %v", r)
	}
}
