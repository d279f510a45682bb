package sched

import (
	"bytes"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Goroutine dumps, for the stall report (stall.md, W5), the fallback look
// (L1) and the hand-over's look at a holder's stack (H2): one bounded
// dump, split into the stacks of the goroutines asked for, and the state
// in a stack's header.

// reportDump bounds the buffer of the report's goroutine dump: its memory
// does not grow with the process's goroutines. The holders are usually
// near its start (runtime.Stack lists the calling goroutine, then the
// others in creation order, and a pool's carriers are made early); one
// that is not is reported without its stack.
const reportDump = 64 << 10

// boundedStacks returns the stacks of the goroutines in want that fit in
// one dump of reportDump bytes, by id. runtime.Stack stops the world while
// it writes every goroutine: this is taken once per pool, for its report.
func boundedStacks(want []int64) map[int64]string {
	buf := make([]byte, reportDump+2)
	n := runtime.Stack(buf[:reportDump], true)
	if n < reportDump { // complete: end the last stack as the others end
		n += copy(buf[n:], "\n\n")
	}
	return splitStacks(buf[:n], want)
}

// stackOf returns goroutine g's stack for the hand-over's look (stall.md,
// H2), or "" if g is gone. It dumps into reportDump bytes first, as the
// report does, and, while g is not in a dump that filled its buffer,
// dumps again into one four times larger, up to maxStackDump: a carrier
// started late sits near the end of a dump of many goroutines. The
// buffer is dropped on return; each dump stops the world once, and the
// hand-overs that take them are paced (tryHandOver).
func stackOf(g int64) string {
	for size := reportDump; ; size *= 4 {
		buf := make([]byte, size+2)
		n := runtime.Stack(buf[:size], true)
		complete := n < size
		if complete {
			n += copy(buf[n:], "\n\n")
		}
		if st, ok := splitStacks(buf[:n], []int64{g})[g]; ok || complete || size >= maxStackDump {
			return st
		}
	}
}

// maxStackDump bounds stackOf's buffer: 64 MiB holds the stacks of
// about a hundred thousand goroutines.
const maxStackDump = 64 << 20

// splitStacks returns the stacks in dump of the goroutines in want, by
// id, each starting with its header line ("goroutine 7 [chan send]:").
// A stack cut short by the buffer's end is left out.
func splitStacks(dump []byte, want []int64) map[int64]string {
	m := make(map[int64]string, len(want))
	for rest := dump; len(rest) > 0; {
		g := rest
		i := bytes.Index(rest, []byte("\n\n"))
		if i < 0 {
			break // the last stack, cut short by the buffer
		}
		g, rest = rest[:i], rest[i+2:]
		id, ok := stackGoroutine(g)
		if ok && slices.Contains(want, id) {
			m[id] = strings.TrimRight(string(g), "\n") + "\n"
		}
	}
	return m
}

// goroutineStacks returns the stacks of the goroutines whose ids are in
// want, by id, from a dump of every goroutine, and the buffer it used, to
// be given back next time (the fallback look's only: its buffer grows
// with the goroutines, as it must to find the holders wherever they are).
func goroutineStacks(buf []byte, want []int64) ([]byte, map[int64]string) {
	if len(buf) == 0 {
		buf = make([]byte, max(1<<16, 4<<10*runtime.NumGoroutine()))
	}
	var n int
	for {
		n = runtime.Stack(buf, true)
		if n < len(buf) {
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return buf, splitStacks(append(buf[:n:n], "\n\n"...), want)
}

// stackGoroutine returns the id in the header of one goroutine's stack.
func stackGoroutine(g []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(g, []byte("goroutine "))
	if !ok {
		return 0, false
	}
	i := bytes.IndexByte(rest, ' ')
	if i < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	return id, err == nil
}

// headerState returns the state in the header of a goroutine's stack
// ("chan receive" in "goroutine 7 [chan receive, 2 minutes]:"), or "".
func headerState(stack string) string {
	i := strings.IndexByte(stack, '[')
	j := strings.IndexAny(stack, ",]")
	if i < 0 || j < i {
		return ""
	}
	return stack[i+1 : j]
}

// blockedState reports whether the goroutine whose stack starts with
// header is blocked: its state (the bracket in "goroutine 7 [chan send,
// 2 minutes]:") is none of those of a goroutine that runs, or is about
// to. A system call counts as blocked: that is where a task reading a
// file or a socket sits.
func blockedState(header string) bool {
	switch headerState(header) {
	case "", "running", "runnable", "preempted", "GC assist wait", "GC assist marking", "copystack":
		return false
	}
	return true
}
