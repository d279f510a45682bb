package deque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
)

// stressItem is one unit of work in the concurrent tests. taker is who took
// it (goroutine number + 1; 0 while nobody has): every Pop or Steal that
// returns the item swaps its own number in, so a second taker sees a
// non-zero previous value.
type stressItem struct {
	id    int64
	taker atomic.Int32
}

// tally is one goroutine's private record of what it took. Only its
// goroutine writes it; the test reads it after sync.WaitGroup.Wait. The
// padding keeps goroutines from sharing a cache line.
type tally struct {
	n, sum  int64 // items taken and the sum of their ids
	last    int64 // id of the previous item taken (thieves: must increase)
	dups    int64 // items this goroutine took that someone had already taken
	dupID   int64 // first such item
	dupPrev int32 // and who had taken it first
	reorder int64 // thieves: items stolen out of FIFO order
	bad     int64 // pointers that are not items of this run
	_       [128]byte
}

// stressRun holds the items of one concurrent test and who took them.
// Goroutine 0 is the owner, 1..K are thieves.
type stressRun struct {
	items   []stressItem
	tallies []tally
}

func newStressRun(n, goroutines int) *stressRun {
	r := &stressRun{items: make([]stressItem, n), tallies: make([]tally, goroutines)}
	for i := range r.items {
		r.items[i].id = int64(i)
	}
	for i := range r.tallies {
		r.tallies[i].last = -1
	}
	return r
}

// take records that goroutine who got it from the deque.
func (r *stressRun) take(who int, it *stressItem) {
	tl := &r.tallies[who]
	if it.id < 0 || it.id >= int64(len(r.items)) || &r.items[it.id] != it {
		tl.bad++
		return
	}
	if prev := it.taker.Swap(int32(who + 1)); prev != 0 {
		if tl.dups == 0 {
			tl.dupID, tl.dupPrev = it.id, prev-1
		}
		tl.dups++
	}
	// A thief's steals come out in push order: indices only grow at the
	// top, and an item at a higher index than one still present was
	// pushed after it. (The owner's pops have no such simple order.)
	if who != 0 && it.id <= tl.last {
		tl.reorder++
	}
	tl.last = it.id
	tl.n++
	tl.sum += it.id
}

// check verifies that every item was taken exactly once and that the
// tallies agree with the items. Call it after all goroutines have finished.
func (r *stressRun) check(t *testing.T) {
	t.Helper()
	n := int64(len(r.items))
	var total, sum int64
	perTaker := make([]int64, len(r.tallies))
	for who := range r.tallies {
		tl := &r.tallies[who]
		if tl.bad != 0 {
			t.Errorf("goroutine %d got %d pointers that are not items", who, tl.bad)
		}
		if tl.dups != 0 {
			t.Errorf("goroutine %d took %d items already taken, first item %d (taken before by goroutine %d)",
				who, tl.dups, tl.dupID, tl.dupPrev)
		}
		if tl.reorder != 0 {
			t.Errorf("thief %d stole %d items out of FIFO order", who, tl.reorder)
		}
		total += tl.n
		sum += tl.sum
	}
	missing := 0
	for i := range r.items {
		w := r.items[i].taker.Load()
		if w == 0 {
			if missing == 0 {
				t.Errorf("item %d was never taken", i)
			}
			missing++
			continue
		}
		perTaker[w-1]++
	}
	if missing != 0 {
		t.Errorf("%d of %d items were never taken", missing, n)
	}
	for who := range r.tallies {
		// Without duplicates, the items marked with a goroutine are exactly
		// the ones it counted.
		if got, want := r.tallies[who].n, perTaker[who]; got != want && r.tallies[who].dups == 0 {
			t.Errorf("goroutine %d counted %d items, but %d items are marked as taken by it", who, got, want)
		}
	}
	if total != n {
		t.Errorf("%d items taken in all, want %d", total, n)
	}
	if want := n * (n - 1) / 2; sum != want {
		t.Errorf("ids of taken items sum to %d, want %d", sum, want)
	}
}

// checkEmpty verifies that nothing is left in d.
func checkEmpty[T any](t *testing.T, d *Deque[T]) {
	t.Helper()
	if n := d.Len(); n != 0 {
		t.Errorf("Len() = %d at the end, want 0", n)
	}
	if x := d.Steal(); x != nil {
		t.Errorf("Steal() at the end returned an item")
	}
	if x := d.Pop(); x != nil {
		t.Errorf("Pop() at the end returned an item")
	}
}

// startThieves starts k goroutines (numbered 1..k) that steal from d until
// done is set. A thief that finds nothing yields now and then, so the owner
// gets the CPU even with more thieves than cores.
func startThieves(r *stressRun, d *Deque[stressItem], k int, done *atomic.Bool, wg *sync.WaitGroup) {
	for who := 1; who <= k; who++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			misses := 0
			for !done.Load() {
				if x := d.Steal(); x != nil {
					r.take(who, x)
					misses = 0
				} else if misses++; misses%64 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
}

// stressN picks the number of items: the full count normally, far fewer
// under the race detector (which is ~10x slower and limits goroutines'
// interleavings anyway) and in -short mode.
func stressN(full int) int {
	switch {
	case fjtest.RaceEnabled:
		return 200_000
	case testing.Short():
		return 100_000
	}
	return full
}

// TestStressEveryItemTakenExactlyOnce runs one owner that pushes items in
// random bursts and pops some of them, against K thieves stealing in loops,
// and checks that every item ends up with exactly one taker. Capacity 4
// makes the deque full, and the one-item race between Pop and Steal, very
// frequent; capacity 1024 exercises long runs of pushes and steals.
func TestStressEveryItemTakenExactlyOnce(t *testing.T) {
	cases := []struct{ capacity, thieves, n int }{
		{4, 3, 4_000_000},
		{4, 7, 4_000_000},
		{1024, 3, 4_000_000},
		{1024, 7, 4_000_000},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("cap=%d/thieves=%d", tc.capacity, tc.thieves), func(t *testing.T) {
			fjtest.Deadline(t, 2*time.Minute)
			// A million items each by default (4 cases: 4 s on two
			// cores), tc.n with FJ_LONG.
			stressOwnerAndThieves(t, tc.capacity, tc.thieves, fjtest.Stress(1_000_000, tc.n, stressN(tc.n)), uint64(i))
		})
	}
}

func stressOwnerAndThieves(t *testing.T, capacity, thieves, n int, seed uint64) {
	d := New[stressItem](capacity)
	r := newStressRun(n, 1+thieves)
	var done atomic.Bool
	var wg sync.WaitGroup
	startThieves(r, d, thieves, &done, &wg)
	// However the owner leaves (t.Fatal included), stop the thieves first.
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			done.Store(true)
			wg.Wait()
		}
	}
	defer stop()

	rng := rand.New(rand.NewPCG(seed, uint64(capacity)))
	maxBurst := 2*capacity + 2 // long enough to fill the deque
	var fulls, emptyPops int
	for next := 0; next < n; {
		// A burst of pushes. On "full", either pop one to make room or
		// yield (letting thieves drain) and retry.
		burst := 1 + rng.IntN(maxBurst)
		for j := 0; j < burst && next < n; j++ {
			if d.Push(&r.items[next]) {
				next++
				continue
			}
			fulls++
			if rng.IntN(2) == 0 {
				if x := d.Pop(); x != nil {
					r.take(0, x)
				}
			} else {
				runtime.Gosched()
			}
		}
		// Then pop some, stopping early if the thieves got there first.
		for pops := rng.IntN(burst + 1); pops > 0; pops-- {
			x := d.Pop()
			if x == nil {
				emptyPops++
				break
			}
			r.take(0, x)
		}
	}
	// Drain. Once Pop returns nil after the last Push, the deque is empty
	// for good: a thief can only still be completing a Steal it has already
	// won (it records that item before it next checks done) or about to
	// fail. So the owner may stop the thieves now without losing items.
	for {
		x := d.Pop()
		if x == nil {
			break
		}
		r.take(0, x)
	}
	stop()

	r.check(t)
	checkEmpty(t, d)
	stolen := int64(n) - r.tallies[0].n
	t.Logf("n=%d: owner popped %d, thieves stole %d; %d pushes on full, %d pops on empty",
		n, r.tallies[0].n, stolen, fulls, emptyPops)
}

// TestStressLastItemTakenByExactlyOneOfPopAndSteal hammers the one race the
// algorithm resolves with a CAS on both sides: the owner pushes one item and
// pops it at once, while thieves steal continuously. Every item must go to
// exactly one of them, and after every Pop the deque must be empty.
func TestStressLastItemTakenByExactlyOneOfPopAndSteal(t *testing.T) {
	for _, capacity := range []int{1, 4} {
		for _, thieves := range []int{1, 3} {
			t.Run(fmt.Sprintf("cap=%d/thieves=%d", capacity, thieves), func(t *testing.T) {
				fjtest.Deadline(t, 2*time.Minute)
				n := 1_000_000
				switch {
				case fjtest.RaceEnabled:
					n = 100_000
				case testing.Short():
					n = 50_000
				}
				stressLastItem(t, capacity, thieves, n)
			})
		}
	}
}

func stressLastItem(t *testing.T, capacity, thieves, n int) {
	d := New[stressItem](capacity)
	r := newStressRun(n, 1+thieves)
	var done atomic.Bool
	var wg sync.WaitGroup
	// Thieves here never yield: the point is to be inside Steal as often as
	// possible when the owner pops.
	for who := 1; who <= thieves; who++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if x := d.Steal(); x != nil {
					r.take(who, x)
				}
			}
		}()
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			done.Store(true)
			wg.Wait()
		}
	}
	defer stop()

	lost := 0
	for i := 0; i < n; i++ {
		it := &r.items[i]
		// The deque is empty here, so Push must succeed.
		if !d.Push(it) {
			t.Fatalf("item %d: Push on an empty deque returned false (Len()=%d)", i, d.Len())
		}
		if x := d.Pop(); x == nil {
			lost++ // a thief took it, or is about to record it
		} else if x != it {
			t.Fatalf("item %d: Pop() returned item %d, want the one just pushed", i, x.id)
		} else {
			r.take(0, x)
		}
		// Whoever won, the deque is empty now and nothing can refill it.
		if l := d.Len(); l != 0 {
			t.Fatalf("item %d: Len() = %d right after Pop, want 0", i, l)
		}
	}
	stop()

	r.check(t)
	checkEmpty(t, d)
	var stolen int64
	for who := 1; who <= thieves; who++ {
		stolen += r.tallies[who].n
	}
	if stolen != int64(lost) {
		t.Errorf("Pop returned nil %d times but thieves stole %d items", lost, stolen)
	}
	t.Logf("n=%d: owner popped %d, thieves stole %d", n, r.tallies[0].n, stolen)
}
