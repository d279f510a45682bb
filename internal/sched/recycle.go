package sched

// Reuse returns a task object that Recycle handed back to w, for w's next
// Spawn, or nil. The object is the one in the deque slot that the next
// Spawn fills, if it was recycled and is a *T; its fields are as they were
// when it was recycled.
//
// The layers above the pool recycle their per-fork job objects this way. A
// join whose job has come back (taken back from the deque, or observed
// finished after a steal) owns the job exclusively again. In recursive code
// the next fork at the same depth finds that job in the very slot it will
// be pushed to: the fork allocates nothing but the caller's closure, and
// the push skips its costliest step, the slot store. No free list is kept;
// the deque's slots are the free list.
//
// Only the goroutine running w's current task may call it.
func Reuse[T any](w *Worker) *T {
	t := w.dq.Spare()
	if t == nil || !t.free || t.spilled {
		// A spilled task (moved to the injector by overflow, then
		// claimed back by its join) may still have a dead entry there,
		// which must keep finding it claimed: never reuse it.
		return nil
	}
	x, ok := any(t.r).(*T)
	if !ok {
		return nil
	}
	t.free = false
	return x
}

// Recycle hands t, which w spawned, back for Reuse. Nobody may use t any
// more: it must have been taken back with TakeBack, or have finished and
// been observed finished (its latch set) by the caller, its only waiter.
// Only the goroutine running w's current task may call it.
func Recycle(w *Worker, t *Task) {
	t.free = true
}
