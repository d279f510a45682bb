package parallel

import (
	"testing"
	"unsafe"
)

// No two workers' values may share a cache line (nor a pair of lines,
// which the adjacent-line prefetcher moves together), whatever T's size.
func TestPerWorkerSlotsArePadded(t *testing.T) {
	check := func(name string, first, second, size uintptr) {
		t.Helper()
		if gap := second - (first + size); gap < 128 {
			t.Errorf("%s: %d bytes between two workers' values, want >= 128", name, gap)
		}
	}
	{
		s := make([]perWorkerSlot[byte], 2)
		check("byte", uintptr(unsafe.Pointer(&s[0].v)), uintptr(unsafe.Pointer(&s[1].v)), unsafe.Sizeof(s[0].v))
	}
	{
		s := make([]perWorkerSlot[[5]int64], 2)
		check("[5]int64", uintptr(unsafe.Pointer(&s[0].v)), uintptr(unsafe.Pointer(&s[1].v)), unsafe.Sizeof(s[0].v)+unsafe.Sizeof(s[0].set))
	}
	if off := unsafe.Offsetof(perWorkerSlot[int]{}.v); off < 128 {
		t.Errorf("the first value starts %d bytes into its slot: it may share a line with the slice's neighbour", off)
	}
}
