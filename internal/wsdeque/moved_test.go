package wsdeque

import "testing"

// takeByTopOnce pushes x, publishes it and pops it: the deque's only
// published item leaves by the top (D5a), so its slot is behind the
// indices and Moved's list has it.
func takeByTopOnce(t *testing.T, d *Deque[int], x *int) {
	t.Helper()
	if !d.Push(x) {
		t.Fatal("Push refused on an empty deque")
	}
	d.Publish()
	if got := d.Pop(); got != x {
		t.Fatalf("Pop() = %p, want %p", got, x)
	}
}

// TestMovedKeepsTheSlotUntilDropped checks what the slots of items taken
// by the top hold (wsdeque.md, "What the slots keep"): the item, while
// Moved's list has it, and nothing once it left the list unused, whether
// Moved skipped it, DropMoved dropped it, or a full list let it go.
func TestMovedKeepsTheSlotUntilDropped(t *testing.T) {
	no := func(*int) bool { return false }
	yes := func(*int) bool { return true }

	t.Run("skipped by Moved", func(t *testing.T) {
		d := New[int](8)
		x := new(int)
		takeByTopOnce(t, d, x)
		if got := d.slots[0].Load(); got != x {
			t.Fatalf("slot 0 holds %p after the take, want the item %p (cleared at Moved, not at the take)", got, x)
		}
		if got := d.Moved(no); got != nil {
			t.Fatalf("Moved(no) = %p, want nil", got)
		}
		if got := d.slots[0].Load(); got != nil {
			t.Fatalf("slot 0 holds %p after Moved skipped its item, want nil", got)
		}
	})

	t.Run("reused by Moved", func(t *testing.T) {
		d := New[int](8)
		x, y := new(int), new(int)
		takeByTopOnce(t, d, x)
		takeByTopOnce(t, d, y)
		// Newest first: y is returned and x, below it, stays listed.
		if got := d.Moved(yes); got != y {
			t.Fatalf("Moved(yes) = %p, want the newest item %p", got, y)
		}
		if d.slots[1].Load() != y || d.slots[0].Load() != x {
			t.Fatal("a reused item's slot, or a listed one's, was cleared")
		}
		if got := d.Moved(func(p *int) bool { return p == x }); got != x {
			t.Fatalf("Moved = %p, want %p", got, x)
		}
		if got := d.Moved(yes); got != nil {
			t.Fatalf("Moved on an empty list = %p, want nil", got)
		}
	})

	t.Run("DropMoved", func(t *testing.T) {
		d := New[int](8)
		x, y := new(int), new(int)
		takeByTopOnce(t, d, x)
		takeByTopOnce(t, d, y)
		d.DropMoved(func(p *int) bool { return p == y })
		if got := d.slots[0].Load(); got != nil {
			t.Fatalf("slot 0 holds %p after DropMoved dropped its item, want nil", got)
		}
		if got := d.slots[1].Load(); got != y {
			t.Fatalf("slot 1 holds %p, want the kept item %p", got, y)
		}
		if got := d.Moved(yes); got != y {
			t.Fatalf("Moved after DropMoved = %p, want the kept item %p", got, y)
		}
	})

	t.Run("taken again", func(t *testing.T) {
		// A recycled item is pushed and taken by the top again and again:
		// one entry each, so that two of them never fill the list and
		// push an entry out (a forgotten slot, an atomic store, per take).
		d := New[int](64)
		x, y := new(int), new(int)
		for range 2 * movedMax {
			takeByTopOnce(t, d, x)
			takeByTopOnce(t, d, y)
		}
		takeByTopOnce(t, d, x)
		if d.nmoved != 2 {
			t.Fatalf("the list has %d entries, want 2: one per item", d.nmoved)
		}
		if got := d.Moved(yes); got != x {
			t.Fatalf("Moved = %p, want the item taken last, %p", got, x)
		}
		if got := d.Moved(yes); got != y {
			t.Fatalf("Moved = %p, want %p", got, y)
		}
		if got := d.Moved(yes); got != nil {
			t.Fatalf("Moved = %p, want nil", got)
		}
		for i := range 4 * movedMax {
			if got, want := d.slots[i].Load(), []*int{x, y}[i%2]; got != want {
				t.Fatalf("slot %d holds %p, want %p: nothing left the list unused", i, got, want)
			}
		}
	})

	t.Run("full list", func(t *testing.T) {
		d := New[int](64)
		items := make([]*int, movedMax+1)
		for i := range items {
			items[i] = new(int)
			takeByTopOnce(t, d, items[i])
		}
		if got := d.slots[0].Load(); got != nil {
			t.Fatalf("slot 0 holds %p after its item left the full list, want nil", got)
		}
		for i := 1; i < len(items); i++ {
			if got := d.slots[i].Load(); got != items[i] {
				t.Fatalf("slot %d holds %p, want its listed item %p", i, got, items[i])
			}
		}
	})

	t.Run("slot live again", func(t *testing.T) {
		// With one slot, the next push reuses the slot the take left:
		// the item is in the deque again there, and dropping its stale
		// list entry must not clear it.
		d := New[int](1)
		x := new(int)
		takeByTopOnce(t, d, x)
		if !d.Push(x) {
			t.Fatal("Push refused")
		}
		d.DropMoved(no)
		if got := d.slots[0].Load(); got != x {
			t.Fatalf("slot 0 holds %p, want the live item %p", got, x)
		}
		if got := d.Pop(); got != x {
			t.Fatalf("Pop() = %p, want the live item %p", got, x)
		}
	})
}
