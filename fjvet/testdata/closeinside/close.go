// Package closeinside holds the close-inside findings: Close of a pool
// from inside one of its tasks.
package closeinside

import (
	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func inside(p *pool.Pool) {
	p.Run(func(w *pool.Worker) {
		p.Close() // want `close-inside: p.Close\(\) from inside a task of p panics`
	})
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		w.Pool().Close() // want `close-inside: w.Pool\(\).Close\(\) from inside a task of w.Pool\(\) panics`
		return 0
	})
	parallel.For(p, 0, 1, func(w *pool.Worker, i int) {
		defer p.Close() // want `close-inside: p.Close\(\) from inside a task of p panics`
		pool.Blocking(func() {
			p.Close() // want `close-inside: p.Close\(\) from inside a blocking section of a task of p panics`
		})
	})
}

// Another pool, or one the analyzer cannot tell apart from the task's.
func other(w *pool.Worker, q *pool.Pool) {
	q.Close() // want `close-inside: q.Close\(\) from inside a task: if q runs this task, Close panics; if it is another pool`
}

func theDefault() {
	pool.Default().Close() // want `close-inside: Close of pool.Default\(\) panics`
}
