package deque

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// workDeque is what the contended benchmark needs, so that it can run the
// lock-free Deque and the mutex baseline with identical code (both through
// an interface call, which costs the same for each).
type workDeque interface {
	Push(x *int) bool
	Pop() *int
	Steal() *int
}

// mutexDeque is the baseline: a bounded ring of the same capacity behind a
// sync.Mutex, with the same semantics as Deque.
type mutexDeque struct {
	mu   sync.Mutex
	buf  []*int
	head int // index in buf of the oldest item
	n    int // number of items
}

func newMutexDeque(capacity int) *mutexDeque {
	return &mutexDeque{buf: make([]*int, New[int](capacity).Cap())}
}

func (d *mutexDeque) Push(x *int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == len(d.buf) {
		return false
	}
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = x
	d.n++
	return true
}

func (d *mutexDeque) Pop() *int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		return nil
	}
	d.n--
	i := (d.head + d.n) & (len(d.buf) - 1)
	x := d.buf[i]
	d.buf[i] = nil
	return x
}

func (d *mutexDeque) Steal() *int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		return nil
	}
	x := d.buf[d.head]
	d.buf[d.head] = nil
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	return x
}

// TestMutexDequeMatchesModel keeps the baseline honest: it must behave like
// the reference model, or the benchmark comparison means nothing.
func TestMutexDequeMatchesModel(t *testing.T) {
	for _, capacity := range []int{1, 4, 16} {
		d, m := newMutexDeque(capacity), newRef(capacity)
		items := make([]int, 64*capacity)
		for i := range items {
			items[i] = i
			var got, want *int
			switch i % 7 {
			case 0, 1, 2, 3:
				if g, w := d.Push(&items[i]), m.push(&items[i]); g != w {
					t.Fatalf("cap=%d op %d: Push = %v, want %v", capacity, i, g, w)
				}
				continue
			case 4, 5:
				got, want = d.Steal(), m.steal()
			case 6:
				got, want = d.Pop(), m.pop()
			}
			if got != want {
				t.Fatalf("cap=%d op %d: got %s, want %s", capacity, i, show(got), show(want))
			}
		}
	}
}

const benchCap = 1024

func BenchmarkPushPop(b *testing.B) {
	d := New[int](benchCap)
	x := new(int)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

func BenchmarkPushSteal(b *testing.B) {
	d := New[int](benchCap)
	x := new(int)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		if d.Steal() != x {
			b.Fatal("Steal did not return the item just pushed")
		}
	}
}

func BenchmarkMutexDequePushPop(b *testing.B) {
	d := newMutexDeque(benchCap)
	x := new(int)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

func BenchmarkMutexDequePushSteal(b *testing.B) {
	d := newMutexDeque(benchCap)
	x := new(int)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Push(x)
		if d.Steal() != x {
			b.Fatal("Steal did not return the item just pushed")
		}
	}
}

// The PushPop benchmarks above always pop the last item, which takes Pop's
// CAS path. The batch variants push 32 items and pop them again, so most
// pops take the CAS-free path. One op is still one Push and one Pop.
const batch = 32

func BenchmarkPushPopBatch(b *testing.B) {
	d := New[int](benchCap)
	x := new(int)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		for j := 0; j < batch; j++ {
			d.Push(x)
		}
		for j := 0; j < batch; j++ {
			if d.Pop() != x {
				b.Fatal("Pop did not return a pushed item")
			}
		}
	}
}

func BenchmarkMutexDequePushPopBatch(b *testing.B) {
	d := newMutexDeque(benchCap)
	x := new(int)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		for j := 0; j < batch; j++ {
			d.Push(x)
		}
		for j := 0; j < batch; j++ {
			if d.Pop() != x {
				b.Fatal("Pop did not return a pushed item")
			}
		}
	}
}

func BenchmarkStealContended(b *testing.B) {
	for _, thieves := range []int{1, 3} {
		b.Run(fmt.Sprintf("thieves=%d", thieves), func(b *testing.B) {
			benchContended(b, New[int](benchCap), thieves)
		})
	}
}

func BenchmarkMutexDequeStealContended(b *testing.B) {
	for _, thieves := range []int{1, 3} {
		b.Run(fmt.Sprintf("thieves=%d", thieves), func(b *testing.B) {
			benchContended(b, newMutexDeque(benchCap), thieves)
		})
	}
}

// benchContended measures the owner's operations while thieves steal. One op
// is one owner iteration: a Push (or, when full, a Pop instead), plus a Pop
// on every other iteration. It reports how many items the thieves stole per
// op and per second, and how many of their Steal calls came back empty.
// The thieves are stopped and waited for before it returns.
func benchContended(b *testing.B, d workDeque, thieves int) {
	var (
		done           atomic.Bool
		stolen, missed atomic.Int64
		wg             sync.WaitGroup
	)
	for i := 0; i < thieves; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n, m int64
			for !done.Load() {
				if d.Steal() != nil {
					n++
				} else if m++; m%64 == 0 {
					runtime.Gosched() // don't starve the owner on 2 cores
				}
			}
			stolen.Add(n)
			missed.Add(m)
		}()
	}
	stop := func() {
		done.Store(true)
		wg.Wait()
	}
	defer func() {
		if !done.Load() {
			stop()
		}
	}()

	x := new(int)
	var popped int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !d.Push(x) {
			if d.Pop() != nil {
				popped++
			}
			continue
		}
		if i&1 == 1 && d.Pop() != nil {
			popped++
		}
	}
	b.StopTimer()
	stop()
	for d.Pop() != nil {
		popped++
	}
	s := float64(stolen.Load())
	b.ReportMetric(s/float64(b.N), "stolen/op")
	b.ReportMetric(float64(missed.Load())/float64(b.N), "missed/op")
	if sec := b.Elapsed().Seconds(); sec > 0 {
		b.ReportMetric(s/sec, "steals/s")
	}
}
