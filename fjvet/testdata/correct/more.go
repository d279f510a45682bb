package correct

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// More of what every rule must leave alone, one case a line.

func square(w *pool.Worker, x int) int { return x * x }

func one(*pool.Worker) int { return 1 }

// captured-worker: the function's own worker, however it reaches it.
func ownWorkers(p *pool.Pool, xs []int, rows [][]int) {
	pw := parallel.NewPerWorker(p, func() int { return 0 })
	parallel.For(p, 0, len(rows), func(w *pool.Worker, i int) {
		a, b := forkjoin.JoinArgs(w, square, i, i+1)                                        // own worker, a named function
		t := forkjoin.Spawn(w, func(w *pool.Worker) int { return a })                       // the literal's own
		f := forkjoin.Fork(w, func(w2 *pool.Worker) int { return b })                       // its own, named otherwise
		*pw.Get(w) += t.Join(w) + f.Join(w)                                                 // joined with the task's own
		parallel.Sort(w, rows[i])                                                           // nested call with its own
		func() { parallel.Sort(w, rows[i]) }()                                              // an immediate call runs here
		defer func() { _ = square(w, i) }()                                                 // a deferred call runs here
		slices.SortFunc(rows[i], func(a, b int) int { return square(w, a) - square(w, b) }) // other code calls it here
		taskblock.Define(w, func(b *taskblock.Block) {
			parallel.Sort(b.Worker(), xs) // the body's worker
			b.Run(func(w *pool.Worker) { parallel.Sort(w, rows[i]) })
		})
		if e := pool.Enter(p); e != nil { // found, not captured
			_ = square(e, i)
		}
	})
	parallel.ForSeq(p, slices.Values(xs), func(w *pool.Worker, x int) { _ = square(w, x) })
}

// An iterator runs in the task that pulls it, with that task's worker;
// its waits are the puller's (a channel worklist, as ForSeq documents).
func worklist(w *pool.Worker, work chan int) {
	parallel.ForSeq(w, func(yield func(int) bool) {
		for x := range work {
			if !yield(square(w, x)) {
				return
			}
		}
	}, func(w *pool.Worker, x int) {}, parallel.Grain(1))
}

// The DefineErr body's runner, and Region's.
func runners(w *pool.Worker, xs []int) error {
	pool.Region(w, "r", func(w2 *pool.Worker) { parallel.Sort(w, xs) })
	return taskblock.DefineErr(w, func(b *taskblock.Block) error {
		parallel.Sort(w, xs)
		return nil
	})
}

// A shadowing parameter is the literal's own.
func shadow(p *pool.Pool, xs []int) {
	p.Run(func(w *pool.Worker) {
		p.Run(func(w *pool.Worker) { parallel.Sort(w, xs) })
	})
}

// blocking: waits outside tasks, in sections, and operations that do not
// block.
func notBlocking(w *pool.Worker, ch chan int, mu *sync.Mutex, ctx context.Context) int {
	var buf bytes.Buffer
	io.Copy(&buf, strings.NewReader("x")) // not a stream
	io.ReadAll(&buf)                      // not a stream
	_ = len(ch) + cap(ch)                 // no receive
	done := ctx.Done()                    // the channel, not a receive
	timer := time.After(time.Millisecond) // the channel, not a receive
	_, _ = os.Getwd()                     // not in the table
	mu.Lock()                             // a short critical section
	buf.WriteString("y")
	mu.Unlock()
	for _, x := range []int{1, 2} { // a range over a slice
		_ = x
	}
	select { // with a default
	case ch <- 1:
	case <-done:
	case <-timer:
	default:
	}
	pool.Blocking(func() { receive(ch) }) // a helper that blocks, in a section
	sectioned(ch)                         // a helper that blocks only in sections of its own
	go func() { ch <- 1 }()               // a goroutine of its own
	close(ch)                             // close does not block
	v, err := pool.BlockingValue(func() (int, error) { return <-ch, nil })
	if err != nil {
		return 0
	}
	return v
}

func receive(ch chan int) int { return <-ch }

func sectioned(ch chan int) {
	pool.Blocking(func() { <-ch })
}

// A closure stored and handed to a section only.
func storedSection(w *pool.Worker, ch chan int) {
	wait := func() { <-ch }
	pool.Blocking(wait)
}

// Waits in code that is no task: main, a test, a helper.
func outside(p *pool.Pool, ch chan int, wg *sync.WaitGroup) {
	wg.Wait()
	<-ch
	time.Sleep(time.Millisecond)
	for range ch {
	}
	p.Run(func(w *pool.Worker) {})
	p.Close()
}

// lock-across-join: unlocked before the call, in every branch.
func unlocked(w *pool.Worker, mu *sync.RWMutex, xs []int, ok bool) {
	mu.RLock()
	n := len(xs)
	mu.RUnlock()
	if ok {
		mu.Lock()
		xs[0] = n
		mu.Unlock()
	} else {
		mu.Lock()
		mu.Unlock()
	}
	parallel.Sort(w, xs)
	forkjoin.Spawn(w, one).Join(w) // Spawn without a lock held
	mu.Lock()
	switch {
	case ok:
		mu.Unlock()
	default:
		mu.Unlock()
	}
	parallel.Sort(w, xs)
}

// escaping-block: the body's own variables and the block's tasks.
func keptInside(p *pool.Pool) {
	taskblock.Define(p, func(b *taskblock.Block) {
		var blocks []*taskblock.Block
		blocks = append(blocks, b)                     // a variable of the body
		run := func() { b.Run(func(*pool.Worker) {}) } // a closure of the body
		run()
		b.Run(func(w *pool.Worker) {
			blocks[0].Run(func(*pool.Worker) {}) // from a task of the block
			taskblock.Define(w, func(inner *taskblock.Block) {
				inner.Run(func(*pool.Worker) { b.Run(func(*pool.Worker) {}) })
			})
		})
		_ = b.Canceled()
	})
}

// close-inside: another pool in a section, and pools closed outside.
func closeOthers(w *pool.Worker, q *pool.Pool) {
	pool.Blocking(func() { q.Close() })
	go q.Close()
}

// unjoined-spawn: joined on return, in a loop, or handed on.
func spawned(w *pool.Worker, n int) (sum int) {
	ts := make([]forkjoin.Task[int], n)
	for i := range ts {
		ts[i] = forkjoin.Spawn(w, one)
	}
	for _, t := range ts {
		sum += t.Join(w)
	}
	t := forkjoin.Spawn(w, one)
	defer func() { sum += t.Join(w) }()
	return joinIt(w, forkjoin.Spawn(w, one))
}

func joinIt(w *pool.Worker, t forkjoin.Task[int]) int { return t.Join(w) }
