package taskblock_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A task that calls runtime.Goexit while the body's worker runs it inline,
// at the end of Define, must not let Define's caller go on while another
// task of the block still runs: the block must stay fully strict, as it
// does for a Goexit in the body itself (see runBody in define.go).
//
// Interleaving (2 workers): the body runs B, then A, both onto its worker's
// deque; it spins, without helping, until worker 1 has stolen and started B
// (the oldest). The body returns; Define's wait takes A back from the bottom
// of the deque and runs it inline, on the body's goroutine. A calls Goexit,
// which unwinds that goroutine: groupTask.Run's Guard records ErrGoexit and
// marks A done, and then the unwinding goes straight through
// Worker.takeBackUntil, Group.Wait, Block.wait and define, none of which
// defers anything, up to the pool's job wrapper, which reports the Goexit to
// the caller of Define (Pool.Run re-panics with ErrAbortedByGoexit) while B is
// still running. B waits for the caller to look before it finishes. The
// block's finished flag is never set either, so Run on it afterwards does not
// panic.
func TestGoexitInInlineTaskKeepsBlockStrict(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	var bStarted, callerLooked, bFinished atomic.Bool
	var bodyID, bID int
	var escaped *taskblock.Block
	var bFinishedWhenDefineEnded bool
	r := catch(func() {
		defer func() { bFinishedWhenDefineEnded = bFinished.Load(); callerLooked.Store(true) }()
		taskblock.Define(p, func(b *taskblock.Block) {
			bodyID = b.Worker().ID()
			//fjvet:ignore escaping-block kept to show that the block stays usable until Define returns
			escaped = b
			b.Run(func(w *pool.Worker) { // B
				bID = w.ID()
				bStarted.Store(true)
				// Finish only once Define's caller has looked, or after a
				// long while (so that a correct Define, which waits for B,
				// does not wait forever).
				for i := 0; i < 1_000_000 && !callerLooked.Load(); i++ {
					runtime.Gosched()
				}
				bFinished.Store(true)
			})
			b.Run(func(*pool.Worker) { runtime.Goexit() }) // A
			for !bStarted.Load() {
				spin(b.Worker())
			}
		})
	})
	if bID == bodyID {
		t.Fatalf("B ran on the body's worker %d; the test needs it stolen", bodyID)
	}
	if !bFinishedWhenDefineEnded {
		t.Errorf("Define's caller got control (recovered %v) while task B of the block was still running", r)
	}
	var ps taskblock.Panics
	if err, ok := r.(error); !ok || !errors.Is(err, pool.ErrGoexit) {
		t.Errorf("Define ended with %#v, want a panic reporting the Goexit", r)
	} else if errors.As(err, &ps) && len(ps) != 1 {
		t.Errorf("Panics = %v, want the Goexit alone", ps)
	}
	// Define has ended: the block must refuse more tasks. (With the bug,
	// finished is never set and this Run quietly queues a task nobody
	// waits for.)
	if msg := panicMessage(catch(func() { escaped.Run(func(*pool.Worker) {}) })); msg == "" {
		t.Errorf("Run on the block after its Define ended by Goexit did not panic")
	}
	stillWorks(t, p, "after a Goexit in a task")
}
