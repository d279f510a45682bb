package wsdeque

// PeekPrivate returns the number of private items as a goroutine other
// than the owner can guess it: a hint for fj's stall monitor
// (internal/sched/stall.md, W3), which keeps watching while every worker
// is busy and some deque holds work, even work nobody else can see yet,
// and puts the count in its report. It reads the owner's bottom without
// synchronisation, so the race detector is told to ignore these
// functions; the value is some recent bottom (on a 32-bit platform it
// may even be torn), and nothing but a report, or how long the monitor
// keeps watching, may depend on it. Owners use Count.
//
//go:norace
func (d *Stealer[T]) PeekPrivate() int {
	// Above pub and top both: a private steal (D8) leaves pub below top.
	n := d.bottom - max(d.pub.Load(), d.top.Load())
	if n < 0 {
		return 0
	}
	return int(n)
}

// PeekBottom returns the owner's bottom index as another goroutine can
// guess it, with PeekPrivate's caveats: for tests that tell an owner in
// the middle of a fork (its bottom moves) from one running a leaf.
//
//go:norace
func (d *Stealer[T]) PeekBottom() int64 { return d.bottom }

// Peek returns the number of items, private ones included, as a goroutine
// other than the owner can guess it: see PeekPrivate, whose caveats it
// shares.
//
//go:norace
func (d *Stealer[T]) Peek() int { return span(d.top.Load(), d.bottom) }
