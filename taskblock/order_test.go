package taskblock_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// newPanicOrder is the fixture of these tests (schedtest.PanicOrder),
// its leaves taking the worker that fj hands them.
func newPanicOrder(order []int, goexit int) *panicOrder {
	return &panicOrder{schedtest.NewPanicOrder(order, goexit)}
}

type panicOrder struct{ *schedtest.PanicOrder }

func (o *panicOrder) leaf(_ *pool.Worker, k int) int { return o.Leaf(k) }

// Panics lists every panic of the block in the order they were captured,
// flat (a task's nested join contributes each of its panics at its
// place), a Goexit report re-raised by a nested join at the place of its
// capture, and Body for the body's.
func TestPanicsInCaptureOrder(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	type entry struct {
		v    any
		body bool
	}
	for _, tc := range []struct {
		name      string
		order     []int
		goexit    int
		bodyPanic bool // leaf 0 is the body's own
		want      []entry
	}{
		// The case: the Goexit report, re-raised by task 2's
		// join, was listed before the earlier panic of leaf 0.
		{"goexit re-raised", []int{0, 3, 2, 1}, 3, false, []entry{{0, false}, {"goexit", false}, {2, false}, {1, false}}},
		{"nested join", []int{2, 0, 3, 1}, -1, false, []entry{{2, false}, {0, false}, {3, false}, {1, false}}},
		{"body", []int{2, 0, 3, 1}, -1, true, []entry{{2, false}, {0, true}, {3, false}, {1, false}}},
	} {
		o := newPanicOrder(tc.order, tc.goexit)
		r := catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				if !tc.bodyPanic {
					b.Run(func(w *pool.Worker) { o.leaf(w, 0) })
				}
				b.Run(func(w *pool.Worker) { o.leaf(w, 1) })
				b.Run(func(w *pool.Worker) { forkjoin.JoinArgs(w, o.leaf, 2, 3) })
				if tc.bodyPanic {
					o.leaf(b.Worker(), 0)
				}
			})
		})
		var ps taskblock.Panics
		if err, ok := r.(error); !ok || !errors.As(err, &ps) {
			t.Fatalf("%s: recovered %#v, want taskblock.Panics", tc.name, r)
		}
		var got []entry
		for _, p := range ps {
			v := p.Value
			if err, ok := v.(error); ok && errors.Is(err, pool.ErrGoexit) {
				v = "goexit"
			}
			if len(p.Later) != 0 {
				t.Errorf("%s: panic %v has %d later panics: Panics is not flat", tc.name, v, len(p.Later))
			}
			got = append(got, entry{v, p.Body})
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Panics %v, want %v", tc.name, got, tc.want)
		}
	}
}
