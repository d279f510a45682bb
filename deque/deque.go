package deque

import "github.com/forkjoin/fj/internal/wsdeque"

// Deque is a bounded, lock-free Chase–Lev work-stealing deque of *T.
//
// One goroutine, the owner, calls Push and Pop; they work on the bottom end,
// so the owner sees its items last-in first-out. Any goroutine may call Steal,
// which takes from the top end, oldest item first. Len and Cap may be called
// by anyone. The zero value is not usable; call New.
//
// The deque holds pointers and never dereferences them. A slot keeps its
// pointer after the item has been taken until the owner's next Push reuses
// it, so up to Cap() taken items may stay reachable; store small handles
// (or drop what they reference when done) if that matters.
type Deque[T any] struct {
	// fj's scheduler uses the same deque with private pushes that it
	// publishes later; here every Push publishes at once.
	d wsdeque.Deque[T]
}

// New returns an empty deque that holds up to capacity items. capacity is
// rounded up to a power of two (so that an index maps to its slot with a
// mask); a capacity below 1 becomes 1. It panics if capacity exceeds 1<<30.
func New[T any](capacity int) *Deque[T] {
	if capacity > wsdeque.MaxCap {
		panic("deque: New: capacity above 1<<30")
	}
	d := new(Deque[T])
	d.d.Init(capacity)
	return d
}

// Cap returns the number of items the deque can hold.
func (d *Deque[T]) Cap() int { return d.d.Cap() }

// Push adds x at the bottom. It reports false, leaving the deque unchanged,
// when the deque holds Cap() items; while thieves are stealing it may also
// report false slightly early, having read their progress late. It never
// reports false when Len() < Cap() and nobody steals. Owner only. x must
// not be nil: nil is how Pop and Steal say "nothing".
func (d *Deque[T]) Push(x *T) bool {
	if !d.d.Push(x) {
		return false
	}
	d.d.Publish() // stealable at once: a Chase–Lev push
	return true
}

// Pop removes and returns the item at the bottom, the one pushed last, or
// nil if the deque is empty. Owner only.
func (d *Deque[T]) Pop() *T { return d.d.Pop() }

// Steal removes and returns the item at the top, the oldest one. It returns
// nil if the deque is empty or if it lost a race for the top item to Pop or
// to another Steal; callers that need an answer retry. Without a concurrent
// Pop or Steal, Steal on a non-empty deque always succeeds.
func (d *Deque[T]) Steal() *T { return d.d.Stealer().Steal() }

// Len returns the number of items in the deque. Under concurrent use it is
// only a hint: the two ends are read one after the other, never together,
// so the result may be off in either direction for the moment the other
// goroutines take to move them. With no concurrent operations it is exact.
func (d *Deque[T]) Len() int { return d.d.Stealer().Len() }
