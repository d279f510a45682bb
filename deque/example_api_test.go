package deque_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/forkjoin/fj/deque"
)

// The contract under concurrency: one owner pushes and pops while any
// number of thieves steal, and every item is taken exactly once. Who gets
// which item depends on timing; the totals do not.
func ExampleDeque() {
	type task struct{ n int }
	d := deque.New[task](1024)
	for i := 1; i <= 1000; i++ {
		d.Push(&task{i})
	}

	var stolen atomic.Int64 // sum of the items the thieves took
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { // a thief
			defer wg.Done()
			for d.Len() > 0 {
				if t := d.Steal(); t != nil { // nil: empty, or a lost race
					stolen.Add(int64(t.n))
				}
			}
		}()
	}
	popped := 0 // the owner's share
	for t := d.Pop(); t != nil; t = d.Pop() {
		popped += t.n
	}
	wg.Wait()
	fmt.Println(popped+int(stolen.Load()), d.Len())
	// Output: 500500 0
}

// The capacity is rounded up to a power of two, so that an index maps to
// its slot with a mask; below 1 it becomes 1.
func ExampleNew() {
	fmt.Println(deque.New[int](1000).Cap(), deque.New[int](1024).Cap(), deque.New[int](0).Cap())
	// Output: 1024 1024 1
}

// A deque is bounded: once it holds Cap() items, Push reports false and
// the owner must put the item elsewhere. A scheduler sends such overflow
// to a shared, unbounded queue.
func ExampleDeque_Cap() {
	d := deque.New[int](4)
	var overflow []*int
	for i := 0; i < 6; i++ {
		x := i
		if !d.Push(&x) {
			overflow = append(overflow, &x)
		}
	}
	fmt.Println(d.Cap(), d.Len(), len(overflow))
	// Output: 4 4 2
}

// Len is exact when nobody else is using the deque; under concurrent use it
// is a hint, good for choosing a victim to steal from, not for deciding
// that an item is there.
func ExampleDeque_Len() {
	d := deque.New[string](8)
	for _, s := range []string{"a", "b", "c"} {
		d.Push(&s)
	}
	fmt.Println(d.Len())
	d.Pop()
	d.Steal()
	fmt.Println(d.Len())
	// Output:
	// 3
	// 1
}

// The owner pops the newest item first, so a recursive computation that
// pushes its subproblems works on the most recent, smallest one next, with
// its data still in cache. Pop returns nil once the deque is empty.
func ExampleDeque_Pop() {
	d := deque.New[int](8)
	for i := 1; i <= 3; i++ {
		d.Push(&i)
	}
	for x := d.Pop(); x != nil; x = d.Pop() {
		fmt.Print(*x, " ")
	}
	fmt.Println(d.Pop())
	// Output: 3 2 1 <nil>
}

// Thieves take the oldest item, at the other end from the owner: in
// recursive work that is the largest piece left, worth the cost of a
// steal. Steal is safe from any goroutine.
func ExampleDeque_Steal() {
	d := deque.New[string](8)
	for _, s := range []string{"whole range", "half", "quarter"} {
		d.Push(&s)
	}
	done := make(chan string)
	go func() { done <- *d.Steal() }() // a thief on another goroutine
	fmt.Println(<-done)
	fmt.Println(*d.Pop())
	// Output:
	// whole range
	// quarter
}
