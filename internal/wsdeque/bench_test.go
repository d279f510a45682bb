package wsdeque

import (
	"sync/atomic"
	"testing"
)

// The owner's fast path, one push and one pop of the same item, as a fork
// that nobody steals does it. The benchmarks differ only in what
// wsdeque.md's cost table says they pay in fences:
//
//	BenchmarkPushPopPrivate             0: D2 with the slot unchanged, D3
//	BenchmarkPushPopPrivateNewPointer   1: D2's atomic slot store, D3
//	BenchmarkPushPopPublished           2: D4's store of pub, D5's store of pub
//	BenchmarkPushPopPublishedLast       3: D4, then D5 for the last item (a CAS
//	                                       and the store that restores pub)
//
// Published is Chase–Lev's push and pop, what every fork would cost if
// pushes were published at once (package deque does that). Run them
// together, so that they share the machine's state:
//
//	go test -run '^$' -bench PushPop -count 10 ./internal/wsdeque

// benchDeque keeps the benchmarks' deque on the heap, where the scheduler's
// deques are, aligned to a line of its own (see TestLayout): left to escape
// analysis, a deque used by one function lives in its stack frame, next to
// the frame's other words.
var benchDeque *Deque[int]

func newBenchDeque() *Deque[int] {
	benchDeque = New[int](64)
	return benchDeque
}

func BenchmarkPushPopPrivate(b *testing.B) {
	d := newBenchDeque()
	x := new(int)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

// A new pointer every push, so that D2 stores the slot: the two items
// alternate in the one slot the loop uses.
func BenchmarkPushPopPrivateNewPointer(b *testing.B) {
	d := newBenchDeque()
	xs := [2]*int{new(int), new(int)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		x := xs[i&1]
		d.Push(x)
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

// One published item stays below, so that Pop takes D5's common path, the
// one where no thief can compete (t < b).
func BenchmarkPushPopPublished(b *testing.B) {
	d := newBenchDeque()
	d.Push(new(int))
	d.Publish()
	x := new(int)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		d.Publish()
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

// The deque is otherwise empty, so every Pop is the last-item race (t ==
// b), settled by a CAS even with no thief about.
func BenchmarkPushPopPublishedLast(b *testing.B) {
	d := newBenchDeque()
	x := new(int)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		d.Publish()
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

// BenchmarkHeavyBarrier is H1's cost for the thief that pays it, with the
// process's other threads idle and with one of them running (spinning on
// another CPU), as a victim worker runs when a thief steals its private
// fork. The barrier interrupts every CPU that runs a thread of the
// process; where that interrupt leaves a virtual machine for its host it
// costs more, and varies with the host's load: on the 2-vCPU development
// VM 1-3 µs idle, 1-10 µs busy on most runs and 68 µs on one afternoon,
// and the interrupted thread lost about 35 µs a barrier in a count of
// its loop's iterations. Skipped where the barrier does not exist.
func BenchmarkHeavyBarrier(b *testing.B) {
	if !PrivateSteals() {
		b.Skip("no heavy barrier on this platform")
	}
	for _, busy := range []bool{false, true} {
		name := "other=idle"
		if busy {
			name = "other=busy"
		}
		b.Run(name, func(b *testing.B) {
			var stop atomic.Bool
			spinning := make(chan struct{})
			done := make(chan struct{})
			if busy {
				go func() {
					defer close(done)
					close(spinning)
					for !stop.Load() {
					}
				}()
				<-spinning
			} else {
				close(done)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Barrier()
			}
			b.StopTimer()
			stop.Store(true)
			<-done
		})
	}
}
