package pool

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

// Region runs f on r like r.Run, as a named part of the computation: when
// an execution trace is being recorded (runtime/trace, go test -trace),
// the call is a trace task called name, and every fj task forked inside f,
// directly or by other tasks, on whichever worker, runs in a trace region
// called name that belongs to that task. While they run, those tasks also
// carry the profiler label fj.region=name, so that a CPU profile can be
// split by region (go tool pprof -tagfocus=fj.region=name).
//
//	pool.Region(p, "resize images", func(w *pool.Worker) {
//		parallel.For(w, 0, len(imgs), resize)
//	})
//
// Regions nest: a task belongs to the innermost one. Outside regions,
// tracing and labels cost nothing measurable; inside, a few hundred
// nanoseconds per task that runs on another worker than its forker.
func Region(r Runner, name string, f func(w *Worker)) {
	if f == nil {
		panic("pool: Region with a nil function")
	}
	r.Run(func(w *Worker) {
		ctx, task := trace.NewTask(context.Background(), name)
		defer task.End()
		s := &scope{name: name, ctx: ctx, labels: make([]context.Context, len(w.pool.workers))}
		prev := w.scope
		w.scope = s
		pprof.SetGoroutineLabels(s.labelsFor(w))
		defer func() {
			w.scope = prev
			pprof.SetGoroutineLabels(prev.labelsFor(w))
		}()
		trace.WithRegion(ctx, name, func() { f(w) })
	})
}

// Scope identifies the Region a task belongs to, for code that hands tasks
// to Worker.Inject: take it with Worker.Scope where the work is created, on
// the worker, and give it to the task with Task.SetScope. The zero Scope
// is no Region.
type Scope struct{ s *scope }

// Scope returns the Region of the task w is running. Only the goroutine
// running w's current task may call it.
func (w *Worker) Scope() Scope { return Scope{w.scope} }

// SetScope makes t run in the Region s identifies. Spawn overrides it with
// the Region of the code that spawns; it is for tasks given to Inject.
func (t *Task) SetScope(s Scope) { t.scope = s.s }

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
func (w *Worker) runScoped(s, prev *scope, t *Task) {
	pprof.SetGoroutineLabels(s.labelsFor(w))
	defer pprof.SetGoroutineLabels(prev.labelsFor(w))
	if s != nil && trace.IsEnabled() {
		defer trace.StartRegion(s.ctx, s.name).End()
	}
	t.r.Run(w)
}

// executeTraced is execute inside a trace region named after the pool and
// the worker, so that go tool trace shows what each worker ran. Carriers
// use it for the tasks of their main loop while a trace is recorded.
func (w *Worker) executeTraced(t *Task) {
	defer trace.StartRegion(context.Background(), w.regionName).End()
	w.execute(t)
}
