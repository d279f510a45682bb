package sched

import (
	"strings"
	"time"
)

// Hand-over (stall.md, H1-H5): a holder blocked in the program's code
// while a parked task of its worker is ready to resume keeps that task
// from ever resuming, since a parked task resumes only on its own worker
// (carrier.md, C4). When the parked task holds what the blocked one waits
// for (a sync.Mutex held across a join, and a younger fork of the same
// task that locks it), the pool hangs. The monitor then hands the worker
// to the parked task, over the blocked holder's head; the blocked holder,
// once its wait ends, finds at its next use of the worker that it is not
// the holder any more, and waits to be handed the worker back, as a
// parked task does. stall.md states the steps and argues why the two never
// touch the worker at once; the code cites them.

// handOver is H1-H3 for w, whose holder, goroutine g, the monitor found
// blocked at two looks (L4) while a parked task of w's is resumable, or
// while w's deque holds tasks that no thief can take (private ones, where
// there are no private steals: wsdeque.md, D8). It reports whether it
// handed w on: to that task, or to a carrier that runs w's deque.
func (p *Pool) handOver(w *remote, g int64) bool {
	if !goidFast {
		// Forks sample the identity check there (debug.go): a holder
		// whose wait ended would not be stopped at its next fork (H4).
		return false
	}
	w.hmu.Lock()
	defer w.hmu.Unlock()
	// H1: the holder's id negated, sequentially consistent, so that
	// every check the goroutine makes from here on fails and waits for
	// hmu (H4). A holder that handed w on meanwhile (or exits) changed
	// the word first: the CAS fails.
	if !w.holder.CompareAndSwap(g, -g) {
		return false
	}
	// The holder's carrier: its store into cur came before its store of
	// g into holder, which the CAS read.
	c := w.cur
	// H2: one goroutine dump, after H1: the holder must still be blocked
	// in it, in the program's code, with no frame of fj's below that
	// would touch w without a check first.
	p.stall.dumps.Add(1)
	st := stackOf(g)
	if c == nil || c.goid != g || !raceClean(c) || !blockedState(st) || !handOverFrames(st) {
		// As it was, unless a carrier taking w over stored its own id
		// meanwhile (a Goexit's successor: carrier.go); the holder's own
		// unregister waits for this decision (H1).
		w.holder.CompareAndSwap(-g, g)
		return false
	}
	// H3: the holder's carrier is displaced, counted as parked, and w
	// goes to the most recently resumed task, as C4 would give it, or
	// else to an idle carrier or a new one, as C2's hand-off does.
	c.displaced = true
	w.displaced = append(w.displaced, c)
	w.parked.Add(1)
	p.stall.handOvers.Add(1)
	next := w.nextCarrier()
	if next == nil {
		p.startCarrier(w.newCarrier(), true) // under hmu: it takes w over without it
		return true
	}
	next.turn <- struct{}{} // one token per parking, never blocks (C2)
	return true
}

// tryHandOver is handOver paced (H2): each attempt stops the world for
// one dump, a time that grows with the process's goroutines. After an
// attempt that could not hand over (the holder inside a loop or a join,
// say), the next waits a hundred times what this one took and a delay
// that doubles from a millisecond up to the report threshold: a pool
// whose holders block in such frames again and again dumps a few times
// per threshold, not once per block. After a hand-over, which ended a
// stall, the next waits four times the dump's time.
func (p *Pool) tryHandOver(v *stallView, w *remote, g int64, now time.Time) bool {
	start := time.Now()
	ok := p.handOver(w, g)
	took := time.Since(start)
	if ok {
		// A hand-over ends a stall: the next may follow soon, a few
		// times the dump's time later.
		v.handBackoff = 0
		v.handNext = now.Add(4 * took)
	} else {
		v.handBackoff = min(max(2*v.handBackoff, time.Millisecond), p.stall.threshold)
		v.handNext = now.Add(max(v.handBackoff, 100*took))
	}
	return ok
}

// reclaim is H4: the calling goroutine g found that it does not hold w.
// If the monitor displaced its carrier (H3), it queues it as resumable
// and waits until w is handed back, then holds w again and reports true;
// if a hand-over that had marked g (H1) was abandoned, it reports true at
// once. Otherwise g does not hold w (a misuse), and it reports false.
//
//go:noinline
func (w *Worker) reclaim(g int64) bool {
	w.hmu.Lock() // waits for a hand-over in progress to decide (H1-H3)
	if w.holder.Load() == g {
		w.hmu.Unlock()
		return true
	}
	i := -1
	for k, c := range w.displaced {
		if c.goid == g {
			i = k
			break
		}
	}
	if i < 0 {
		w.hmu.Unlock()
		return false
	}
	c := w.displaced[i]
	last := len(w.displaced) - 1
	w.displaced[i] = w.displaced[last]
	w.displaced[last] = nil
	w.displaced = w.displaced[:last]
	c.displaced = false
	// Its table entry stayed while it was displaced (so that its own
	// lookups come here); taking the worker back registers it anew (I3).
	// Only the entry goes: the holder word is the new holder's, or still
	// -g until it registers (H1), and unregister would wait for hmu,
	// which this goroutine holds.
	w.dropEntry(c)
	w.resumable = append(w.resumable, c)
	w.nResumable.Add(1) // after the append, before the token (as resume)
	w.hmu.Unlock()
	w.remote().signal()
	// As resume (W2): while the holder is blocked, only another
	// hand-over gives w back, and the watch may have gone idle.
	w.pool.armOnResume()
	w.unpark(c)
	// The owner state of the task c was running when it blocked: H2
	// let no Region or loop frame of fj's be on its stack, so it ran
	// outside both (execute, runTask).
	w.scope = nil
	w.loopNest = notNested
	return true
}

// reclaimHere is H4 at a point where the calling goroutine, c's, must
// hold w and a hand-over may have displaced it: after a main-loop task
// (runTask) and before a Goexit's report (Guard).
func (w *Worker) reclaimHere(g int64) {
	if w.holder.Load() != g && !w.reclaim(g) {
		panic("fj: internal error: a carrier lost its worker")
	}
}

// handOverFrames is H2's test of a blocked holder's stack, as
// runtime.Stack prints it: every frame of fj's own code on it must be one
// of handOverSafe (they touch the worker again only after a check, H4),
// and the innermost of them must have called the program's code, in which
// the goroutine waits. Anything else (a join, a loop, a block, a Region,
// fj's own locks or channels) fails it.
func handOverFrames(stack string) bool {
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	if len(lines) < 2 {
		return false
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "...") {
			// "...N frames elided...": a stack over 100 frames deep
			// has its middle left out, where any frame could be (a
			// Join's, below a Worker.Run deep in its first half),
			// and the pairs of lines after it are off by one.
			return false
		}
	}
	innermost := true
	prevRuntime := false // the frame above, the callee, is the runtime's
	for i := 1; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "created by ") {
			break
		}
		name, fj := fjFunc(fn)
		if !fj {
			prevRuntime = strings.HasPrefix(fn, "runtime.")
			continue
		}
		if !handOverSafe[name] {
			return false
		}
		if innermost {
			// Its callee, the frame above, must be the program's (no
			// frame of fj's came before: this is the first).
			if i == 1 || prevRuntime || !handOverCalls[name] {
				return false
			}
			innermost = false
		}
	}
	return !innermost
}

// fjFunc returns the function of a stack's function line, without its
// module path, generic arguments, closure suffixes and arguments, and
// whether it is fj's own code (not its tests or examples).
func fjFunc(line string) (string, bool) {
	const mod = "github.com/forkjoin/fj/"
	if !strings.HasPrefix(line, mod) {
		return "", false
	}
	fn := line[len(mod):]
	if i := strings.LastIndexByte(fn, '('); i > 0 && strings.HasSuffix(fn, ")") {
		fn = fn[:i] // the arguments
	}
	pkg := fn
	if i := strings.IndexByte(pkg, '.'); i >= 0 {
		pkg = pkg[:i]
	}
	if strings.HasSuffix(pkg, "_test") || strings.HasPrefix(pkg, "examples") || strings.HasPrefix(pkg, "bench") {
		return "", false
	}
	fn = strings.ReplaceAll(fn, "[...]", "")
	for {
		i := strings.LastIndexByte(fn, '.')
		if i < 0 {
			break
		}
		if !closureSuffix(fn[i+1:]) {
			break
		}
		fn = fn[:i]
	}
	return fn, true
}

// closureSuffix reports whether s names a closure or a wrapper the
// compiler made inside a function: func1, gowrap2, deferwrap1.
func closureSuffix(s string) bool {
	for _, p := range []string{"func", "gowrap", "deferwrap"} {
		if d, ok := strings.CutPrefix(s, p); ok && d != "" && strings.Trim(d, "0123456789") == "" {
			return true
		}
	}
	return false
}

// handOverCalls lists the frames of fj's own code that call the
// program's code and may be on a blocked holder's stack (H2): the task
// wrappers a carrier's main loop runs, and the dispatch's. The innermost
// frame of fj's must be one of them.
var handOverCalls = map[string]bool{
	"internal/sched.(*funcJob).Run":     true,
	"internal/sched.(*argJob).Run":      true,
	"internal/sched.(*spawnJob).Run":    true,
	"internal/sched.(*Future).Run":      true,
	"internal/sched.(*externalJob).Run": true,
	"internal/sched.callOutside":        true,
	"internal/sched.Call":               true,
	"internal/sched.Do":                 true,
}

// handOverSafe lists every frame of fj's own code that may be on a
// blocked holder's stack below the program's code it waits in (H2):
// handOverCalls, and a carrier's main loop and the frames between it and
// them. A task block's task is not one: when it ends on its block's home
// worker, it counts itself in a word only that worker's holders write
// (group.go, G5). After the program's code returns to them, none touches
// the worker before the check after each main-loop task (runTask, H4) or
// a Goexit's (Guard, H4): they record a result and set a latch (which any
// goroutine may).
var handOverSafe = func() map[string]bool {
	m := map[string]bool{
		"internal/sched.(*carrier).run":      true,
		"internal/sched.(*Worker).hold":      true,
		"internal/sched.(*Worker).spareStep": true,
		"internal/sched.(*Worker).runTask":   true,
		"internal/sched.(*Worker).execute":   true,
		"internal/sched.(*Worker).Guard":     true,
		"internal/sched.Capture":             true,
		"internal/sched.(*job).complete":     true,
		"internal/sched.RunHere":             true,
	}
	for f := range handOverCalls {
		m[f] = true
	}
	return m
}()
