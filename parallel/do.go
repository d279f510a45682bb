package parallel

import (
	"fmt"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// Do calls every function in fs, potentially in parallel, and returns
// when all of them have returned. Each receives the worker it runs on. If
// any panics, Do panics with a *pool.PanicError carrying the first
// panic, after the others have finished (or were dropped unstarted).
// (forkjoin.Invoke, by contrast, runs one function and returns its result.)
//
//	parallel.Do(p,
//		func(w *pool.Worker) { parallel.Sort(w, a) },
//		func(w *pool.Worker) { parallel.Sort(w, b) })
func Do(r pool.Runner, fs ...func(w *pool.Worker)) {
	w := enter(r)
	for i, f := range fs {
		if f == nil {
			panic(fmt.Sprintf("parallel: Do with a nil function (argument %d)", i))
		}
	}
	switch len(fs) {
	case 0:
		return
	case 1:
		runOn(r, w, fs[0])
		return
	}
	runOn(r, w, func(w *pool.Worker) { do(w, fs) })
}

// do runs fs, of length >= 1, by recursive halving, so that a long
// list is spread over the workers in log(len(fs)) steps.
func do(w *pool.Worker, fs []func(w *pool.Worker)) {
	if len(fs) == 1 {
		fs[0](w)
		return
	}
	mid := len(fs) / 2
	forkjoin.Join(w,
		func(w *pool.Worker) struct{} { do(w, fs[:mid]); return struct{}{} },
		func(w *pool.Worker) struct{} { do(w, fs[mid:]); return struct{}{} })
}
