package deque_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/forkjoin/fj/deque"
)

func TestTakeOldest(t *testing.T) {
	d := deque.New[int](8)
	items := make([]int, 8)
	for i := range items {
		items[i] = i
		d.Push(&items[i])
	}
	buf := make([]*int, 8)
	if k := d.TakeOldest(buf); k != 4 {
		t.Fatalf("TakeOldest on 8 items took %d, want half, 4", k)
	}
	for i := 0; i < 4; i++ {
		if *buf[i] != i {
			t.Errorf("TakeOldest item %d = %d, want %d (oldest first)", i, *buf[i], i)
		}
	}
	if d.Len() != 4 {
		t.Errorf("Len after TakeOldest = %d, want 4", d.Len())
	}
	if k := d.TakeOldest(buf[:1]); k != 1 || *buf[0] != 4 {
		t.Errorf("TakeOldest(1 slot) took %d items, first %d; want 1, 4", k, *buf[0])
	}
	one := deque.New[int](4)
	one.Push(&items[0])
	if k := one.TakeOldest(buf); k != 0 {
		t.Errorf("TakeOldest on one item took %d, want 0 (never the newest)", k)
	}
	if x := one.Pop(); x != &items[0] {
		t.Errorf("Pop after TakeOldest = %v, want the item", x)
	}
}

// Every item is taken exactly once when the owner pushes, pops and moves
// batches with TakeOldest while thieves steal.
func TestTakeOldestWithThieves(t *testing.T) {
	const n, thieves = 200000, 3
	d := deque.New[int](64)
	items := make([]int, n)
	var taken []atomic.Int32 = make([]atomic.Int32, n)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < thieves; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if x := d.Steal(); x != nil {
					taken[*x].Add(1)
				}
			}
		}()
	}
	buf := make([]*int, 32)
	for i := 0; i < n; i++ {
		items[i] = i
		for !d.Push(&items[i]) {
			k := d.TakeOldest(buf)
			for _, x := range buf[:k] {
				taken[*x].Add(1)
			}
			if k == 0 {
				if x := d.Pop(); x != nil {
					taken[*x].Add(1)
				}
			}
		}
		if i%7 == 0 {
			if x := d.Pop(); x != nil {
				taken[*x].Add(1)
			}
		}
	}
	for x := d.Pop(); x != nil; x = d.Pop() {
		taken[*x].Add(1)
	}
	stop.Store(true)
	wg.Wait()
	for i := range taken {
		if c := taken[i].Load(); c != 1 {
			t.Fatalf("item %d taken %d times", i, c)
		}
	}
}
