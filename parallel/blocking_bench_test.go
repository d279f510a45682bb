package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// BenchmarkForErrBlocking: issue 34's job, with the three ways to bind a
// loop to a context side by side: 200 items, each waiting 5 to 20 ms in
// a blocking section (pool.Blocking), the last item failing
// after its wait, ForErr on 2 workers. How many bodies wait at once must
// not depend on the option: with every item in flight the call takes
// about the longest wait (20 ms); a piece per worker running its items
// in order takes about half the sum of the waits (1.25 s), and anything
// between is how far the loop's split lags behind its waiting bodies.
// The bodies ignore the context, so that the three forms run the same
// bodies; what the failure skips depends only on how far the loop got.
func BenchmarkForErrBlocking(b *testing.B) {
	const n = 200
	errFail := errors.New("item failed")
	wait := func(i int) time.Duration { return time.Duration(5+(i*7)%16) * time.Millisecond }
	body := func(failing int) func(_ *pool.Worker, i int) error {
		return func(_ *pool.Worker, i int) error {
			pool.Blocking(func() { time.Sleep(wait(i)) })
			if i == failing {
				return errFail
			}
			return nil
		}
	}
	forms := []struct {
		name string
		opts func() []parallel.Option
	}{
		{"opt=none", func() []parallel.Option { return nil }},
		{"opt=Context", func() []parallel.Option { return []parallel.Option{parallel.Context(context.Background())} }},
		{"opt=WithContext", func() []parallel.Option {
			opt, _ := parallel.WithContext(context.Background())
			return []parallel.Option{opt}
		}},
	}
	for _, failing := range []int{17, 100, 199} {
		for _, form := range forms {
			b.Run(fmt.Sprintf("fail=%d/%s", failing, form.name), func(b *testing.B) {
				p := pool.New(pool.WithWorkers(2))
				defer p.Close()
				for range b.N {
					if err := parallel.ForErr(p, 0, n, body(failing), form.opts()...); err != errFail {
						b.Fatalf("ForErr returned %v, want the failing item's error", err)
					}
				}
				// The most bodies that waited at once, in any call.
				b.ReportMetric(float64(p.Stats().MostBlocking), "most-waiting")
			})
		}
	}
}
