package wsdeque

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

// item is one unit of work in the concurrent tests.
type item struct {
	id int64
	// published is set by the owner, with a plain write, just before the
	// Publish that makes the item stealable. Whoever takes the item from
	// the top reads it: false means the item was taken while private, and
	// under -race a missing happens-before edge from the owner's Publish
	// to the taker shows as a data race here.
	published bool
	// taker is who took the item, plus one; 0 while nobody has. Every
	// taker swaps its own number in, so a second one sees a non-zero
	// previous value.
	taker atomic.Int32
}

// Takers: the owner's Pop, the owner's TakeOldest (into a side list, as a
// scheduler moves a batch elsewhere), then the thieves.
const (
	byPop        = 0
	byTakeOldest = 1
	firstThief   = 2
)

// tally is one taker's private record. Only its goroutine writes it; the
// test reads it after the goroutines have finished. The padding keeps
// takers off each other's cache lines.
type tally struct {
	n, sum      int64 // items taken and the sum of their ids
	last        int64 // id of the previous item taken from the top
	dups        int64 // items that someone had already taken
	dupID       int64 // the first such item
	dupPrev     int32 // and who had taken it
	reorder     int64 // items taken from the top out of push order
	reorderID   int64 // the first such item
	reorderLast int64 // and the item taken before it
	private     int64 // items taken from the top that were never published
	privateID   int64 // the first such item
	bad         int64 // pointers that are not items of this run
	_           [128]byte
}

// stressRun holds the items of one concurrent test and who took them.
type stressRun struct {
	items   []item
	tallies []tally
	// privateOK: thieves may take private items (D8), so a taker from
	// the top finding an item never published is no error.
	privateOK bool
}

func newStressRun(n, takers int) *stressRun {
	r := &stressRun{items: make([]item, n), tallies: make([]tally, takers)}
	for i := range r.items {
		r.items[i].id = int64(i)
	}
	for i := range r.tallies {
		r.tallies[i].last = -1
	}
	return r
}

// take records that taker who got it from the deque.
func (r *stressRun) take(who int, it *item) {
	tl := &r.tallies[who]
	if it == nil || it.id < 0 || it.id >= int64(len(r.items)) || &r.items[it.id] != it {
		tl.bad++
		return
	}
	if prev := it.taker.Swap(int32(who + 1)); prev != 0 {
		if tl.dups == 0 {
			tl.dupID, tl.dupPrev = it.id, prev-1
		}
		tl.dups++
	}
	if who != byPop {
		// From the top. Items are pushed in id order, and an item at a
		// higher index than one still in the deque was pushed after
		// it, so each taker from the top sees ids increase (the
		// owner's pops have no such simple order).
		if it.id <= tl.last {
			if tl.reorder == 0 {
				tl.reorderID, tl.reorderLast = it.id, tl.last
			}
			tl.reorder++
		}
		tl.last = it.id
		if !it.published && !r.privateOK {
			if tl.private == 0 {
				tl.privateID = it.id
			}
			tl.private++
		}
	}
	tl.n++
	tl.sum += it.id
}

func takerName(who int) string {
	switch who {
	case byPop:
		return "the owner's Pop"
	case byTakeOldest:
		return "the owner's TakeOldest"
	}
	return fmt.Sprintf("thief %d", who-firstThief+1)
}

// check verifies that every item was taken exactly once, from the top in
// push order and only once published. Call it after every goroutine has
// finished.
func (r *stressRun) check(t *testing.T) {
	t.Helper()
	n := int64(len(r.items))
	var total, sum int64
	perTaker := make([]int64, len(r.tallies))
	for who := range r.tallies {
		tl := &r.tallies[who]
		name := takerName(who)
		if tl.bad != 0 {
			t.Errorf("%s got %d pointers that are not items", name, tl.bad)
		}
		if tl.dups != 0 {
			t.Errorf("%s took %d items already taken; the first, item %d, by %s", name, tl.dups, tl.dupID, takerName(int(tl.dupPrev)))
		}
		if tl.reorder != 0 {
			t.Errorf("%s took %d items out of push order; the first, item %d after item %d", name, tl.reorder, tl.reorderID, tl.reorderLast)
		}
		if tl.private != 0 {
			t.Errorf("%s took %d private items; the first, item %d", name, tl.private, tl.privateID)
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
		if got, want := r.tallies[who].n, perTaker[who]; got != want && r.tallies[who].dups == 0 {
			t.Errorf("%s counted %d items, but %d are marked as taken by it", takerName(who), got, want)
		}
	}
	if total != n {
		t.Errorf("%d takes in all, want %d, one per push", total, n)
	}
	if want := n * (n - 1) / 2; sum != want {
		t.Errorf("ids of taken items sum to %d, want %d", sum, want)
	}
}

// thieves runs k goroutines that steal from d until stop is called.
type thieves struct {
	done    atomic.Bool
	wg      sync.WaitGroup
	stopped bool
}

// startThieves starts k thieves (takers firstThief...). With yield, a thief
// that finds nothing 64 times in a row yields, so that the owner gets the
// CPU even with more thieves than cores; without it, thieves spin, to be
// inside Steal as often as possible when the owner pops.
func startThieves(r *stressRun, d *Deque[item], k int, yield bool) *thieves {
	th := new(thieves)
	for who := firstThief; who < firstThief+k; who++ {
		th.wg.Add(1)
		go func() {
			defer th.wg.Done()
			misses := 0
			for !th.done.Load() {
				if x := d.Stealer().Steal(); x != nil {
					r.take(who, x)
					misses = 0
				} else if misses++; yield && misses%64 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	return th
}

// stop stops the thieves and waits for them. A thief that has won a Steal
// records the item before it looks at done again, so once the owner has
// seen the deque empty for good, nothing is lost by stopping.
func (th *thieves) stop() {
	if !th.stopped {
		th.stopped = true
		th.done.Store(true)
		th.wg.Wait()
	}
}

// stressSize is the number of items for a stress test: long under FJ_LONG,
// def otherwise; a tenth of that under the race detector, which is ten
// times slower; and no more than def/10 with -short.
func stressSize(long, def int) int {
	n := def
	if fjtest.Long() {
		n = long
	}
	if fjtest.RaceEnabled {
		n /= 10
	}
	if testing.Short() {
		n = min(n, def/10)
	}
	return n
}

func stressDeadline(t *testing.T) {
	if fjtest.Long() {
		fjtest.Deadline(t, 10*time.Minute)
	} else {
		fjtest.Deadline(t, 2*time.Minute)
	}
}

// TestStressEveryItemTakenOnce runs one owner that pushes, publishes and
// pops in random phases, and now and then moves a batch out with
// TakeOldest, against 1, 3 and 7 thieves. Every item must be taken exactly
// once; thieves and TakeOldest must take only published items, in push
// order; the owner's Pop must return its newest private item whenever it
// has one. Capacity 4 makes the deque full, and the last-item race, very
// frequent; capacity 256 makes long runs of private and published items.
func TestStressEveryItemTakenOnce(t *testing.T) {
	n := stressSize(20_000_000, 500_000)
	for i, capacity := range []int{4, 256} {
		for j, k := range []int{1, 3, 7} {
			t.Run(fmt.Sprintf("cap=%d/thieves=%d", capacity, k), func(t *testing.T) {
				stressDeadline(t)
				stressOwner(t, capacity, k, n, uint64(10*i+j))
			})
		}
	}
}

func stressOwner(t *testing.T, capacity, k, n int, seed uint64) {
	d := New[item](capacity)
	r := newStressRun(n, firstThief+k)
	th := startThieves(r, d, k, true)
	defer th.stop() // however the owner leaves, t.Fatal included

	rng := rand.New(rand.NewPCG(seed, uint64(capacity)))
	var priv []*item // the owner's own record of its private items, oldest first
	buf := make([]*item, d.Cap())
	var fulls, pops, privatePops, emptyPops, publishes, batches int

	// checkCounts checks the counts after operation i (-1: drained).
	checkCounts := func(i int) {
		if got := d.Private(); got != len(priv) {
			t.Fatalf("after operation %d: Private() = %d, want %d", i, got, len(priv))
		}
		if c := d.Count(); c < len(priv) || c > d.Cap() {
			t.Fatalf("after operation %d: Count() = %d, want between Private() = %d and Cap() = %d", i, c, len(priv), d.Cap())
		}
	}
	publish := func() {
		for _, it := range priv {
			it.published = true
		}
		priv = priv[:0]
		d.Publish()
		publishes++
	}
	// pop pops one item and reports whether there was one.
	pop := func() bool {
		var want *item
		if len(priv) > 0 {
			want = priv[len(priv)-1]
			priv = priv[:len(priv)-1]
		}
		x := d.Pop()
		switch {
		case want != nil:
			if x != want {
				t.Fatalf("Pop() with private items returned %v, want the newest private item, %d", x, want.id)
			}
			privatePops++
		case x == nil:
			emptyPops++ // empty, or a thief won the last item
			return false
		case !x.published:
			t.Fatalf("Pop() without private items returned item %d, which was never published", x.id)
		}
		pops++
		r.take(byPop, x)
		return true
	}
	takeOldest := func() {
		m := d.TakeOldest(buf[:1+rng.IntN(len(buf))])
		for _, x := range buf[:m] {
			r.take(byTakeOldest, x)
		}
		if m > 0 {
			batches++
		}
	}

	// Phases of changing weights, so that runs alternate between filling
	// up privately, publishing often, and draining.
	phase := 2*capacity + 8
	var pushW, publishW, popW, takeW int
	for i, next := 0, 0; next < n; i++ {
		if i%phase == 0 {
			pushW, publishW, popW, takeW = 1+rng.IntN(10), rng.IntN(4), rng.IntN(6), rng.IntN(2)
		}
		switch c := rng.IntN(pushW + publishW + popW + takeW); {
		case c < pushW:
			it := &r.items[next]
			if d.Push(it) {
				priv = append(priv, it)
				next++
				break
			}
			fulls++
			// Make room: publish for the thieves, move a batch out,
			// pop one, or let the thieves run.
			switch rng.IntN(4) {
			case 0:
				publish()
			case 1:
				takeOldest()
			case 2:
				pop()
			default:
				runtime.Gosched()
			}
		case c < pushW+publishW:
			publish()
		case c < pushW+publishW+popW:
			pop()
		default:
			takeOldest()
		}
		checkCounts(i)
	}
	// Drain. Once Pop returns nil with no private item, the deque is
	// empty for good: a thief is at most finishing a Steal it has already
	// won, and records it before it stops.
	for pop() {
	}
	checkCounts(-1)
	if c, l := d.Count(), d.Stealer().Len(); c != 0 || l != 0 {
		t.Fatalf("drained: Count() = %d, Len() = %d, want 0, 0", c, l)
	}
	th.stop()
	r.check(t)
	stolen := int64(n) - r.tallies[byPop].n - r.tallies[byTakeOldest].n
	t.Logf("n=%d: owner popped %d (%d private), moved %d in %d TakeOldest batches, thieves stole %d; %d publishes, %d pushes on full, %d pops finding nothing",
		n, pops, privatePops, r.tallies[byTakeOldest].n, batches, stolen, publishes, fulls, emptyPops)
}

// TestStressLastItem hammers the one race the protocol settles with a CAS
// on both sides (D5): each round the owner publishes one to three items,
// pushes zero or one private item above them, then pops until the deque is
// empty, while thieves spin in Steal. The private item must come back to
// the owner first, at no risk; the published ones go to exactly one taker
// each, the owner getting them newest first; after the Pop that returns
// nil the deque must be empty.
func TestStressLastItem(t *testing.T) {
	n := stressSize(10_000_000, 300_000)
	for _, capacity := range []int{1, 4} {
		for _, k := range []int{1, 3, 7} {
			t.Run(fmt.Sprintf("cap=%d/thieves=%d", capacity, k), func(t *testing.T) {
				stressDeadline(t)
				stressLastItem(t, capacity, k, n)
			})
		}
	}
}

func stressLastItem(t *testing.T, capacity, k, n int) {
	d := New[item](capacity)
	r := newStressRun(n, firstThief+k)
	th := startThieves(r, d, k, false)
	defer th.stop()

	rng := rand.New(rand.NewPCG(uint64(capacity), uint64(k)))
	var popped, lastPops, lost int
	for next := 0; next < n; {
		npub := min(1+rng.IntN(3), d.Cap(), n-next)
		nprv := min(rng.IntN(2), d.Cap()-npub, n-next-npub)
		first := next
		for range npub + nprv {
			// The deque is empty at the start of a round, so these
			// pushes must succeed.
			if !d.Push(&r.items[next]) {
				t.Fatalf("item %d: Push returned false with Count() = %d < Cap() = %d", next, d.Count(), d.Cap())
			}
			if next-first < npub {
				r.items[next].published = true
			}
			next++
			if next-first == npub {
				d.Publish()
			}
		}
		if nprv > 0 {
			want := &r.items[next-1]
			if x := d.Pop(); x != want {
				t.Fatalf("item %d: Pop() of the private item returned %v", want.id, x)
			}
			r.take(byPop, want)
			popped++
		}
		// The published items, newest first, until the thieves have
		// taken the rest from the other end.
		prev := int64(next - nprv)
		for {
			x := d.Pop()
			if x == nil {
				break
			}
			if x.id != prev-1 {
				t.Fatalf("round of items %d..%d: Pop() returned item %d, want %d, the newest remaining", first, next-1, x.id, prev-1)
			}
			if x.id == int64(first) {
				lastPops++ // most likely contended
			}
			prev = x.id
			r.take(byPop, x)
			popped++
		}
		if c, l := d.Count(), d.Stealer().Len(); c != 0 || l != 0 {
			t.Fatalf("round of items %d..%d: Count() = %d, Len() = %d after Pop returned nil, want 0, 0", first, next-1, c, l)
		}
		lost += int(prev - int64(first))
	}
	th.stop()
	r.check(t)
	var stolen int64
	for who := firstThief; who < firstThief+k; who++ {
		stolen += r.tallies[who].n
	}
	if stolen != int64(lost) {
		t.Errorf("the owner's pops left %d items to thieves, but thieves stole %d", lost, stolen)
	}
	t.Logf("n=%d: owner popped %d (the oldest of a round %d times), thieves stole %d", n, popped, lastPops, stolen)
}

// TestStressPrivateSteals runs an owner that forks as the scheduler does,
// privately, publishing rarely, and takes its items back with Pop and
// PopPrivate, against thieves that take private items with D8 (PrivateTop,
// the heavy barrier, StealPrivate) and published ones with StealBatch.
// Every item must be taken exactly once, thieves in push order; a pop
// must return the newest item or report the deque empty. This is the
// race the barrier settles (wsdeque.md, H2): the owner's plain store of
// bottom against a thief's claim of the same index. Where private steals
// are off (no heavy barrier: fjnoprivate, other platforms), PrivateTop
// turns every thief to D6, and the test checks the guarantee left there:
// the thieves take published items, each exactly once, and never one the
// owner has not published.
//
// A run must also reach the case it is for: a private steal (with D8), a
// steal of a published item (without). On a loaded machine the thieves'
// threads may get no CPU during a short run (once in a run of the suite
// beside other builds at a load of 10: cap=16, 3 thieves, 0.2 s), so a
// run that missed it is made again, up to five times; what the thieves
// took is checked in every run.
func TestStressPrivateSteals(t *testing.T) {
	n := stressSize(2_000_000, 100_000)
	for _, capacity := range []int{2, 16} {
		for _, k := range []int{1, 3} {
			t.Run(fmt.Sprintf("cap=%d/thieves=%d", capacity, k), func(t *testing.T) {
				stressDeadline(t)
				const runs = 5
				for run := 1; ; run++ {
					missed := stressPrivate(t, capacity, k, n)
					if missed == "" || t.Failed() {
						return
					}
					if run == runs {
						t.Errorf("%d runs, and in each %s", runs, missed)
						return
					}
					t.Logf("run %d: %s; again", run, missed)
				}
			})
		}
	}
}

// stressPrivate makes one run and checks it; it returns what the run
// missed of what it is for ("" if nothing), which a longer or luckier run
// may reach.
func stressPrivate(t *testing.T, capacity, k, n int) (missed string) {
	d := New[item](capacity)
	r := newStressRun(n, firstThief+k)
	r.privateOK = true
	var done atomic.Bool
	var wg sync.WaitGroup
	var privateTaken atomic.Int64
	var pubUpTo atomic.Int64 // items below this id have been published
	for who := firstThief; who < firstThief+k; who++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := d.Stealer()
			var batch [4]*item
			for i := 0; !done.Load(); i++ {
				if t, ok := s.PrivateTop(); ok {
					Barrier()
					if x := s.StealPrivate(t); x != nil {
						if x.id >= pubUpTo.Load() {
							privateTaken.Add(1)
						}
						r.take(who, x)
					}
					continue
				}
				if i%2 == 0 {
					for _, x := range batch[:s.StealBatch(batch[:])] {
						r.take(who, x)
					}
				} else if x := s.Steal(); x != nil {
					r.take(who, x)
				}
				if i%64 == 63 {
					runtime.Gosched()
				}
			}
		}()
	}
	defer func() { done.Store(true); wg.Wait() }()

	rng := rand.New(rand.NewPCG(uint64(capacity), uint64(k)))
	var spin atomic.Int64
	var stack []*item // what the owner believes it holds, oldest first
	popNewest := func(useExact bool) {
		want := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if useExact {
			if d.PopPrivate(want) {
				r.take(byPop, want)
				return
			}
			// Not the private bottom: published, or taken by a thief
			// (then the deque is empty and all below are gone too).
		}
		x := d.Pop()
		if x == nil {
			if d.Count() != 0 {
				t.Fatalf("Pop() = nil with Count() = %d", d.Count())
			}
			stack = stack[:0] // thieves took everything older
			return
		}
		if x != want {
			t.Fatalf("Pop() = item %d, want item %d, the newest", x.id, want.id)
		}
		r.take(byPop, x)
	}
	for next := 0; next < n; {
		// A burst of forks, as a recursion makes, then joins.
		for range 1 + rng.IntN(capacity) {
			if next == n || !d.Push(&r.items[next]) {
				break
			}
			stack = append(stack, &r.items[next])
			next++
		}
		if rng.IntN(8) == 0 {
			// Not x.published: the owner may no longer hold what it
			// believes it holds (a thief may have taken it by D8), and
			// must not write into it.
			pubUpTo.Store(int64(next))
			d.Publish()
		}
		// A leaf of varying length, so that thieves' barriers land
		// both inside it and on the pops around it.
		for range rng.IntN(4) << rng.IntN(12) {
			spin.Add(1)
		}
		for pops := rng.IntN(len(stack) + 1); pops > 0 && len(stack) > 0; pops-- {
			popNewest(rng.IntN(2) == 0)
		}
	}
	for len(stack) > 0 {
		popNewest(false)
	}
	done.Store(true)
	wg.Wait()
	r.check(t)
	t.Logf("n=%d: owner popped %d, thieves took %d private items", n, r.tallies[byPop].n, privateTaken.Load())
	switch {
	case !PrivateSteals() && privateTaken.Load() != 0:
		t.Errorf("private steals off, but thieves took %d items the owner never published", privateTaken.Load())
	case PrivateSteals() && privateTaken.Load() == 0:
		return "thieves took no private item: D8 was not tested"
	case !PrivateSteals() && r.tallies[byPop].n == int64(n):
		return "private steals off, and thieves took no published item: D6 against the owner was not tested"
	}
	return ""
}
