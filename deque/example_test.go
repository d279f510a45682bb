package deque_test

import (
	"fmt"

	"github.com/forkjoin/fj/deque"
)

func Example() {
	d := deque.New[string](4) // holds up to 4 items

	// The owner pushes and pops at the bottom: last in, first out.
	for _, s := range []string{"a", "b", "c"} {
		d.Push(&s)
	}
	fmt.Println(*d.Pop())

	// Thieves (any goroutine) steal from the top: first in, first out.
	fmt.Println(*d.Steal())
	fmt.Println(d.Len())
	// Output:
	// c
	// a
	// 1
}

func ExampleDeque_Push() {
	d := deque.New[int](2)
	x := 1
	fmt.Println(d.Push(&x), d.Push(&x), d.Push(&x)) // the third does not fit
	// Output: true true false
}
