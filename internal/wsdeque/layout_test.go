package wsdeque

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

// The deque's fields are laid out by who writes them (see the Deque type):
// a field added later must not land on another side's line.
// The offsets are the same on 64- and 32-bit platforms: the padding
// counts the word-sized fields in words.
func TestLayout(t *testing.T) {
	var d Deque[int]
	for _, f := range []struct {
		name      string
		off, want uintptr
	}{
		{"top", unsafe.Offsetof(d.top), 0},
		{"pub", unsafe.Offsetof(d.pub), cacheLine},
		{"mask", unsafe.Offsetof(d.mask), cacheLine + 8},
		{"slots", unsafe.Offsetof(d.slots), cacheLine + 16},
		{"bottom", unsafe.Offsetof(d.bottom), 2 * cacheLine},
		{"pubOwn", unsafe.Offsetof(d.pubOwn), 2*cacheLine + 8},
		{"topCache", unsafe.Offsetof(d.topCache), 2*cacheLine + 16},
	} {
		if f.off != f.want {
			t.Errorf("offset of %s = %d, want %d", f.name, f.off, f.want)
		}
	}
	if end := unsafe.Offsetof(d.slots) + unsafe.Sizeof(d.slots); end > 2*cacheLine {
		t.Errorf("the owner's published fields end at %d, past their line (%d)", end, 2*cacheLine)
	}
	// A whole number of lines: the next object on the heap starts on a
	// line of its own, so two workers' deques never share one (a thief's
	// CAS on one's top would evict the other's bottom).
	if size := unsafe.Sizeof(d); size != 4*cacheLine {
		t.Errorf("Sizeof(Deque) = %d, want %d", size, 4*cacheLine)
	}
	// Go's allocator puts objects of this size at multiples of it within
	// page-aligned spans, so they start on a line boundary. The language
	// does not promise it; report rather than fail if a runtime does not.
	for i := 0; i < 8; i++ {
		if a := uintptr(unsafe.Pointer(New[int](16))); a%cacheLine != 0 {
			t.Logf("a Deque allocated at %#x, not on a %d-byte boundary", a, cacheLine)
		}
	}
}

// The layout again, as constant expressions that fail to compile where it
// does not hold (an index out of [0, 1), or a negative uintptr): the tests
// are built for every platform CI names but run only on some, and on a
// 32-bit one a bottom that is not 8-byte aligned makes every atomic load
// of it (D8) panic.
var layoutDeque Deque[int]

var _ = [1]struct{}{}[unsafe.Offsetof(layoutDeque.pub)-cacheLine]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutDeque.bottom)-2*cacheLine]
var _ = [1]struct{}{}[unsafe.Sizeof(layoutDeque)-4*cacheLine]

// setSlot (store_norace.go) writes a slot's pointer through an
// unsafe.Pointer to the atomic.Pointer[T]: that is only right while the
// pointer is its only word, at offset 0.
func TestSlotIsOneWord(t *testing.T) {
	var s atomic.Pointer[int]
	if size := unsafe.Sizeof(s); size != unsafe.Sizeof(unsafe.Pointer(nil)) {
		t.Fatalf("Sizeof(atomic.Pointer[int]) = %d, want one pointer", size)
	}
	x := new(int)
	var d Deque[int]
	d.setSlot(&s, x)
	if got := s.Load(); got != x {
		t.Fatalf("after setSlot(x), Load() = %p, want %p", got, x)
	}
	d.setSlot(&s, nil)
	if got := s.Load(); got != nil {
		t.Fatalf("after setSlot(nil), Load() = %p, want nil", got)
	}
}
