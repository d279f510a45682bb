package sched

import "sync/atomic"

// injector holds tasks that are not on any worker's deque: tasks submitted
// from goroutines that are not workers, and forks that overflowed a full
// deque. It is a few mutex-protected FIFO queues (buckets), so that many
// external submitters do not all serialise on one lock; workers drain the
// buckets round-robin. Order across buckets is not FIFO, and need not be:
// the injector promises only that every task is eventually taken.
type injector struct {
	buckets []bucket
	mask    uint32
}

type bucket struct {
	// n is the number of queued tasks, kept outside the lock so that
	// workers can skip empty buckets, and the sleep protocol can check for
	// work, without locking. It is incremented after the task is queued,
	// inside the lock; see push.
	n  atomic.Int64
	mu Lock
	q  ring
	_  [64]byte // keep neighbouring buckets' locks off one cache line
}

// ring is an unbounded FIFO queue of tasks in a growable circular buffer.
type ring struct {
	buf        []*task
	head, size int
}

func (in *injector) init(n int) {
	size := 1
	for size < n {
		size <<= 1
	}
	in.buckets = make([]bucket, size)
	in.mask = uint32(size - 1)
}

// push queues t in bucket i (taken modulo the bucket count).
func (in *injector) push(i uint32, t *task) {
	b := &in.buckets[i&in.mask]
	b.mu.Lock()
	b.q.push(t)
	// The sequentially consistent increment is the publication the sleep
	// protocol relies on: the caller's load of the pool's control word
	// comes after it, and a sleeper's re-check loads n after announcing
	// itself (see sleep.md).
	b.n.Add(1)
	b.mu.Unlock()
}

// pushBatch queues ts in bucket i, oldest first, under one lock.
func (in *injector) pushBatch(i uint32, ts []*task) {
	b := &in.buckets[i&in.mask]
	b.mu.Lock()
	for _, t := range ts {
		b.q.push(t)
	}
	// One sequentially consistent add publishes them all (see push).
	b.n.Add(int64(len(ts)))
	b.mu.Unlock()
}

// pop takes the oldest task of the first non-empty bucket, starting at
// bucket start, or returns nil if all buckets looked empty: popBatch of
// one.
func (in *injector) pop(start uint32) *task {
	var one [1]*task
	if in.popBatch(start, one[:]) == 0 {
		return nil
	}
	return one[0]
}

// popBatch takes, for a worker with room in its deque, the
// oldest task of the first non-empty bucket into dst[0] and, under the
// same lock, up to len(dst)-1 more, at most half of what the bucket holds
// after the first, stopping at a spilled task (those must not go to
// another worker's deque: their owner may claim them back, see takeBack, join.go J1).
// It returns how many it took, as the Go runtime's runqgrab takes half a
// run queue at once.
func (in *injector) popBatch(start uint32, dst []*task) int {
	for i := range in.buckets {
		b := &in.buckets[(start+uint32(i))&in.mask]
		if b.n.Load() == 0 {
			continue
		}
		b.mu.Lock()
		k := 0
		if t := b.q.pop(); t != nil {
			dst[0] = t
			k = 1
			for more := min(len(dst)-1, b.q.size/2); more > 0; more-- {
				if b.q.peek().spilled.Load() {
					break
				}
				dst[k] = b.q.pop()
				k++
			}
			b.n.Add(-int64(k))
		}
		b.mu.Unlock()
		if k != 0 {
			return k
		}
	}
	return 0
}

// removeLast takes t off bucket i if it is the newest task there, and
// reports whether it did. An owner that claimed back a task it spilled
// uses it so that the dead entry does not linger: it would keep the task
// reachable and make idle workers believe there is work.
func (in *injector) removeLast(i uint32, t *task) bool {
	b := &in.buckets[i&in.mask]
	if b.n.Load() == 0 {
		return false
	}
	b.mu.Lock()
	ok := b.q.size > 0 && b.q.buf[(b.q.head+b.q.size-1)%len(b.q.buf)] == t
	if ok {
		b.q.size--
		b.q.buf[(b.q.head+b.q.size)%len(b.q.buf)] = nil
		b.n.Add(-1)
	}
	b.mu.Unlock()
	return ok
}

// len returns the number of queued tasks; a snapshot.
func (in *injector) len() int64 {
	var n int64
	for i := range in.buckets {
		n += in.buckets[i].n.Load()
	}
	return n
}

func (r *ring) push(t *task) {
	if r.size == len(r.buf) {
		n := 2 * len(r.buf)
		if n == 0 {
			n = 16
		}
		buf := make([]*task, n)
		k := copy(buf, r.buf[r.head:])
		copy(buf[k:], r.buf[:r.head])
		r.buf, r.head = buf, 0
	}
	r.buf[(r.head+r.size)%len(r.buf)] = t
	r.size++
}

// peek returns the oldest task without taking it; the ring must not be
// empty.
func (r *ring) peek() *task { return r.buf[r.head] }

func (r *ring) pop() *task {
	if r.size == 0 {
		return nil
	}
	t := r.buf[r.head]
	r.buf[r.head] = nil // do not keep a finished task's closure reachable
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return t
}
