package taskblock_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A Define whose tasks ran on its own worker hands its state to the next
// Define there (newBlock, release). A Block kept from the first must still
// panic when used inside the second, which runs on the same state, and
// must not start its task in the second block; the second block's own
// Block is another one and works.
func TestKeptBlockAfterStateReused(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	p.Run(func(w *pool.Worker) {
		for _, tasks := range []int{0, 1, 2} {
			var kept *taskblock.Block
			taskblock.Define(w, func(b *taskblock.Block) {
				//fjvet:ignore escaping-block the test keeps the block past its Define on purpose
				kept = b
				for range tasks {
					b.Run(func(*pool.Worker) {})
				}
			})
			var staleRan, ownRan atomic.Int32
			var runMsg, waitMsg string
			var canceled bool
			taskblock.Define(w, func(b *taskblock.Block) {
				if b == kept {
					t.Errorf("tasks=%d: the second Define got the first one's Block", tasks)
				}
				runMsg = panicMessage(catch(func() { kept.Run(func(*pool.Worker) { staleRan.Add(1) }) }))
				waitMsg = panicMessage(catch(func() { kept.Wait() }))
				canceled = kept.Canceled()
				b.Run(func(*pool.Worker) { ownRan.Add(1) })
			})
			if !strings.Contains(runMsg, "returned") || !strings.Contains(waitMsg, "returned") {
				t.Errorf("tasks=%d: Run and Wait on the kept Block panicked with %q and %q, want messages saying Define returned", tasks, runMsg, waitMsg)
			}
			if staleRan.Load() != 0 || ownRan.Load() != 1 {
				t.Errorf("tasks=%d: the kept Block's task ran %d times, the second block's %d; want 0 and 1", tasks, staleRan.Load(), ownRan.Load())
			}
			if canceled {
				t.Errorf("tasks=%d: Canceled on the kept Block of a block that did not fail = true", tasks)
			}
		}
	})
}

// A kept Block used from a task of another worker while its worker goes on
// defining blocks on its state panics every time, and none of its tasks
// runs: a Run that counted its task in a later block withdraws it
// (schedule). It runs under the race detector too, which reports nothing:
// what the Run reads, the Defines do not write plainly (Block.p).
func TestKeptBlockRacingReuse(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var kept *taskblock.Block
	var stop atomic.Bool
	var staleRan, panics, ownRan, defines atomic.Int64
	var badMsg atomic.Value
	taskblock.Define(p, func(b *taskblock.Block) {
		home := b.Worker().ID()
		// Keep a Block of the home worker's, then let a task that another
		// worker steals use it while home defines blocks.
		//fjvet:ignore escaping-block the test keeps the block past its Define on purpose
		taskblock.Define(b.Worker(), func(k *taskblock.Block) { kept = k })
		b.Run(func(w *pool.Worker) {
			if w.ID() == home {
				return // not stolen: nothing to race with
			}
			for !stop.Load() {
				msg := panicMessage(catch(func() { kept.Run(func(*pool.Worker) { staleRan.Add(1) }) }))
				if msg != "taskblock: Run on a block whose Define has returned" {
					badMsg.Store(msg)
				}
				panics.Add(1)
			}
		})
		for i := 0; i < 2_000_000 && (panics.Load() < 1000 || defines.Load() < 1000); i++ {
			taskblock.Define(b.Worker(), func(b2 *taskblock.Block) {
				b2.Run(func(*pool.Worker) { ownRan.Add(1) })
			})
			defines.Add(1)
			if i%64 == 0 {
				spin(b.Worker()) // lets the racing task be stolen
			}
		}
		stop.Store(true)
	})
	if panics.Load() == 0 {
		t.Fatalf("the task using the kept Block was never stolen: nothing raced")
	}
	if msg := badMsg.Load(); msg != nil {
		t.Errorf("Run on the kept Block panicked with %q, want a message saying its Define returned", msg)
	}
	if staleRan.Load() != 0 {
		t.Errorf("%d tasks of the kept Block ran", staleRan.Load())
	}
	if ownRan.Load() != defines.Load() {
		t.Errorf("%d tasks of %d blocks ran, want one each", ownRan.Load(), defines.Load())
	}
	t.Logf("%d Defines, %d Runs on the kept Block", defines.Load(), panics.Load())
}
