package forkjoin_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// Panics are never lost or replaced (README.md, "Semantics in short"),
// whatever the value. These are the values a recover-based capture is tempted to
// read as "no panic": a nil *pool.PanicError, and panic(nil) under
// GODEBUG=panicnil=1, where recover returns nil as it does for Goexit.

// nilPanicCases runs raise (which panics with some value) in every place a
// task body can be, and reports each place that did not re-raise a panic.
func nilPanicCases(raise func()) []string {
	var failures []string
	expectPanic := func(where string, f func()) {
		r := catch(f)
		if r == nil {
			failures = append(failures, where+": returned normally")
			return
		}
		if _, ok := r.(*pool.PanicError); !ok {
			if _, ok := r.(taskblock.Panics); !ok {
				failures = append(failures, fmt.Sprintf("%s: panicked with %T, want *pool.PanicError or taskblock.Panics", where, r))
			}
		}
	}
	for _, n := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(n))
		at := func(s string) string { return fmt.Sprintf("workers=%d: %s", n, s) }
		expectPanic(at("Invoke"), func() {
			forkjoin.Invoke(p, func(*pool.Worker) int { raise(); return 0 })
		})
		expectPanic(at("Join, fa"), func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				forkjoin.Join(w, func(*pool.Worker) int { raise(); return 0 }, func(*pool.Worker) int { return 0 })
				return 0
			})
		})
		expectPanic(at("Join, fb taken back"), func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				forkjoin.Join(w, func(*pool.Worker) int { return 0 }, func(*pool.Worker) int { raise(); return 0 })
				return 0
			})
		})
		if n > 1 {
			// fb stolen: fa waits, without helping, until fb started.
			expectPanic(at("Join, fb stolen"), func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int {
					var started atomic.Bool
					forkjoin.Join(w,
						func(w *pool.Worker) int {
							// spin, not a sleep: fb may be private to this
							// worker (work-first) until a fork of fa's
							// publishes it to the idle one.
							for !started.Load() {
								spin(w)
							}
							return 0
						},
						func(*pool.Worker) int { started.Store(true); raise(); return 0 })
					return 0
				})
			})
		}
		expectPanic(at("Fork, Future.Join"), func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				return forkjoin.Fork(w, func(*pool.Worker) int { raise(); return 0 }).Join(w)
			})
		})
		expectPanic(at("Define, body"), func() {
			taskblock.Define(p, func(*taskblock.Block) { raise() })
		})
		expectPanic(at("Define, task"), func() {
			taskblock.Define(p, func(b *taskblock.Block) { b.Run(func(*pool.Worker) { raise() }) })
		})
		expectPanic(at("parallel.For"), func() {
			parallel.For(p, 0, 100, func(_ *pool.Worker, i int) {
				if i == 37 {
					raise()
				}
			})
		})
		expectPanic(at("Pool.Run"), func() { p.Run(func(*pool.Worker) { raise() }) })
		expectPanic(at("a short SortFunc (sorted on the caller)"), func() {
			parallel.SortFunc(p, []int{3, 1, 2}, func(a, b int) int { raise(); return a - b })
		})
		p.Close()
	}
	return failures
}

func TestTypedNilPanicErrorIsRaised(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, f := range nilPanicCases(func() { panic((*pool.PanicError)(nil)) }) {
		t.Error(f)
	}
}

// panicNilChild marks the re-executed test binary of TestPanicNilIsRaised.
const panicNilChild = "FJ_FORKJOIN_PANICNIL_CHILD"

// With GODEBUG=panicnil=1 (a process-wide setting, hence a child process),
// panic(nil) recovers as nil, exactly like a runtime.Goexit does.
func TestPanicNilIsRaised(t *testing.T) {
	if os.Getenv(panicNilChild) != "" {
		if r := catch(func() { panic(nil) }); r != nil {
			fmt.Printf("SETUP: recover() = %#v under panicnil=1, want nil\n", r)
			return
		}
		for _, f := range nilPanicCases(func() { panic(nil) }) {
			fmt.Println("FAIL:", f)
		}
		fmt.Println("PANICNIL-DONE")
		return
	}
	fjtest.Deadline(t, 120*time.Second)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicNilIsRaised$", "-test.count=1")
	cmd.Env = append(os.Environ(), panicNilChild+"=1", "GODEBUG=panicnil=1")
	out, err := cmd.CombinedOutput()
	s := string(out)
	if err != nil || !strings.Contains(s, "PANICNIL-DONE") || strings.Contains(s, "FAIL:") || strings.Contains(s, "SETUP:") {
		t.Fatalf("child process (GODEBUG=panicnil=1): %v\n%s", err, s)
	}
}

func TestJoinOnNilFuturePanics(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var f *forkjoin.Future[int]
	msg := panicMessage(catch(func() {
		forkjoin.Invoke(p, func(w *pool.Worker) int { return f.Join(w) })
	}))
	if !strings.Contains(msg, "nil *Future") {
		t.Fatalf("Join on a nil *Future: panic %q, want one naming the nil *Future", msg)
	}
}
