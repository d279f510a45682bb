package sched

import (
	"context"
	"runtime/pprof"
	"runtime/trace"
)

// scope is a named part of a computation: the tasks forked, directly or
// not, inside a call of Region. It ties them to one execution-trace task
// and gives them a profiler label.
type scope struct {
	name string
	ctx  context.Context // carries the runtime/trace task
	// labels[i] is worker i's profiler labels plus fj.region=name, made
	// by worker i itself on first use (so no two goroutines write one
	// element).
	labels []context.Context
}

// Region runs f on w as a named part of the computation; see pool.Region,
// which documents it for users. It must be called by the goroutine running
// w's current task.
func (w *Worker) Region(name string, f func(w *Worker)) {
	ctx, tk := trace.NewTask(context.Background(), name)
	defer tk.End()
	s := &scope{name: name, ctx: ctx, labels: make([]context.Context, len(w.pool.workers))}
	prev := w.scope
	w.scope = s
	pprof.SetGoroutineLabels(s.labelsFor(w))
	g := w.Holder() // stall.md, Y6: the program's code runs next
	defer func() {
		w.Regain(g) // Y6: f may have blocked
		w.scope = prev
		pprof.SetGoroutineLabels(prev.labelsFor(w))
		raceHandOff(w) // Y6: the program's code runs next
	}()
	trace.WithRegion(ctx, name, func() { f(w) })
}

// labelsFor returns the profiler labels of w's goroutines while they run a
// task of s; for a nil scope, the worker's own. Only w may call it.
func (s *scope) labelsFor(w *Worker) context.Context {
	if s == nil {
		return w.labels
	}
	l := s.labels[w.id]
	if l == nil {
		l = pprof.WithLabels(w.labels, pprof.Labels("fj.region", s.name))
		s.labels[w.id] = l
	}
	return l
}

// runScoped runs t on w as a task of scope s (nil: of no Region) while the
// code around it belongs to prev: with s's profiler labels, and in a trace
// region of s when tracing is on.
func (w *Worker) runScoped(s, prev *scope, t *task) {
	pprof.SetGoroutineLabels(s.labelsFor(w))
	g := w.Holder() // stall.md, Y6: the program's code runs next
	defer func() {
		w.Regain(g) // Y6: the task may have blocked
		pprof.SetGoroutineLabels(prev.labelsFor(w))
	}()
	if s != nil && trace.IsEnabled() {
		defer trace.StartRegion(s.ctx, s.name).End()
	}
	t.r.Run(w)
}
