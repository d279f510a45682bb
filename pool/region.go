package pool

import "github.com/forkjoin/fj/internal/sched"

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
	if r == nil {
		panic("pool: Region with a nil Runner")
	}
	r.Run(func(w *Worker) {
		w.sched().Region(name, func(sw *sched.Worker) { f(sched.As[Worker](sw)) })
	})
}
