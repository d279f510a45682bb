package forkjoin_test

import (
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
)

// The order of panics (issue 25): of several panics met by one join, the
// joiner raises the one captured first, with all the others in Later, flat
// and in the order they were captured, whatever the shape of the joins
// they came through; a panic re-raised by an inner join, and the report of
// a runtime.Goexit, keep the place of their first capture.

// newPanicOrder is the fixture of these tests (schedtest.PanicOrder),
// its leaves taking the worker that fj hands them.
func newPanicOrder(order []int, goexit int) *panicOrder {
	return &panicOrder{schedtest.NewPanicOrder(order, goexit)}
}

type panicOrder struct{ *schedtest.PanicOrder }

func (o *panicOrder) leaf(_ *pool.Worker, k int) int { return o.Leaf(k) }

// panicValues returns the values of the PanicError r and of its Later,
// with "goexit" for a Goexit report, or fails the test if r is not such
// or its Later is not flat.
func panicValues(t *testing.T, r any) []any {
	t.Helper()
	pe, ok := r.(*pool.PanicError)
	if !ok {
		t.Fatalf("recovered %#v, want a *pool.PanicError", r)
	}
	value := func(pe *pool.PanicError) any {
		if err, ok := pe.Value.(error); ok && errors.Is(err, pool.ErrGoexit) {
			return "goexit" // the Value: errors.Is(pe, ...) would look into Later too
		}
		return pe.Value
	}
	vs := []any{value(pe)}
	for _, l := range pe.Later {
		if len(l.Later) != 0 {
			t.Errorf("Later is not flat: %v has %d panics of its own", l.Value, len(l.Later))
		}
		vs = append(vs, value(l))
	}
	return vs
}

func TestPanicOrderJoinAllAndReduce(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	for _, tc := range []struct {
		order  []int
		goexit int
		want   []any
	}{
		{[]int{0, 2, 1, 3}, -1, []any{0, 2, 1, 3}}, // the case: it gave 0, [1 2 [3]]
		{[]int{3, 1, 2, 0}, -1, []any{3, 1, 2, 0}},
		{[]int{2, 1, 0, 3}, 1, []any{2, "goexit", 0, 3}}, // a Goexit report first in an inner join
	} {
		for _, form := range []string{"JoinAll", "JoinReduce"} {
			o := newPanicOrder(tc.order, tc.goexit)
			r := catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int {
					if form == "JoinAll" {
						forkjoin.JoinAll(w, o.leaf, []int{0, 1, 2, 3})
					} else {
						forkjoin.JoinReduce(w, o.leaf, []int{0, 1, 2, 3}, func(a, b int) int { return a + b })
					}
					return 0
				})
			})
			if got := panicValues(t, r); !slices.Equal(got, tc.want) {
				t.Errorf("%s, panics in the order %v (Goexit: %d): raised %v, want %v", form, tc.order, tc.goexit, got, tc.want)
			}
		}
	}
}

// Nested joins: Join(Join(leaf 0, leaf 1), Join(leaf 2, leaf 3)).
func TestPanicOrderNestedJoins(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	for _, tc := range []struct {
		order  []int
		goexit int
		want   []any
	}{
		{[]int{0, 2, 1, 3}, -1, []any{0, 2, 1, 3}},
		{[]int{1, 3, 2, 0}, -1, []any{1, 3, 2, 0}},
		// A Goexit report raised first by the inner join and captured
		// again by the outer one came first whatever happened before it.
		{[]int{2, 1, 0, 3}, 1, []any{2, "goexit", 0, 3}},
		{[]int{0, 1, 3, 2}, 3, []any{0, 1, "goexit", 2}},
	} {
		o := newPanicOrder(tc.order, tc.goexit)
		half := func(w *pool.Worker, k int) int {
			a, b := forkjoin.JoinArgs(w, o.leaf, k, k+1)
			return a + b
		}
		r := catch(func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				a, b := forkjoin.Join(w,
					func(w *pool.Worker) int { return half(w, 0) },
					func(w *pool.Worker) int { return half(w, 2) })
				return a + b
			})
		})
		if got := panicValues(t, r); !slices.Equal(got, tc.want) {
			t.Errorf("panics in the order %v (Goexit: %d): raised %v, want %v", tc.order, tc.goexit, got, tc.want)
		}
	}
}

// The Goexit case on two workers: fa panics, and only then fb,
// stolen, joins a fork of its own that called runtime.Goexit, and
// re-raises its report. fa's panic was captured first, and is raised.
func TestPanicOrderGoexitReraised(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for round := 0; round < 20; round++ {
		fbStarted, faCaptured, fExited := make(chan struct{}), make(chan struct{}), make(chan struct{})
		r := catch(func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				forkjoin.Join(w,
					func(w *pool.Worker) int {
						pool.Blocking(func() { <-fbStarted }) // fb runs meanwhile: the panic drops nothing
						// Captured now, by an inner call, then
						// re-raised: its number is from now.
						pe := catch(func() { forkjoin.Invoke(w, func(*pool.Worker) int { panic("fa") }) })
						close(faCaptured)
						panic(pe)
					},
					func(w *pool.Worker) int {
						close(fbStarted)
						pool.Blocking(func() { <-faCaptured })
						f := forkjoin.Fork(w, func(*pool.Worker) int {
							defer close(fExited)
							runtime.Goexit()
							return 0
						})
						// In a section, so that f runs elsewhere (on
						// this worker's next carrier, or a thief) and
						// its Goexit ends that goroutine, not this one.
						pool.Blocking(func() { <-fExited })
						return f.Join(w) // re-raises the Goexit report
					})
				return 0
			})
		})
		got := panicValues(t, r)
		if want := []any{"fa", "goexit"}; !slices.Equal(got, want) {
			t.Fatalf("round %d: raised %v, want %v", round, got, want)
		}
	}
}
