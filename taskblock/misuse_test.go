package taskblock_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

//fjvet:file-ignore escaping-block,captured-worker,blocking these tests of the run-time misuse checks make the mistakes on purpose, and wait for the goroutines they start

// blockPanicMessages returns the values of the panics Define raised.
func blockPanicMessages(r any) []string {
	var ps taskblock.Panics
	err, ok := r.(error)
	if !ok || !errors.As(err, &ps) {
		return []string{fmt.Sprintf("not taskblock.Panics: %#v", r)}
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, fmt.Sprint(p.Value))
	}
	return msgs
}

// Wait from a task of its own block waits for itself: it panics, naming
// Wait, instead of hanging, on any number of workers.
func TestWaitFromOwnTaskPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, n := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(n))
		r := catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { b.Wait() })
			})
		})
		msgs := blockPanicMessages(r)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "Wait called from a task of its own block") {
			t.Errorf("workers=%d: Wait from a task: %q", n, msgs)
		}
		// The same while the body itself waits (the task then runs
		// inline on the body's goroutine, or on another worker).
		r = catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { b.Wait() })
				b.Wait()
			})
		})
		msgs = blockPanicMessages(r)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "Wait") {
			t.Errorf("workers=%d: Wait from a task while the body waits: %q", n, msgs)
		}
		p.Close()
	}
}

var errRunGo = errors.New("from a task")

// Run and Go work from the body and from any task of the block (N4411):
// each forks onto the calling task's own worker, found from the calling
// goroutine.
func TestRunAndGoFromTasks(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, n := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(n))
		var ran atomic.Int64
		taskblock.Define(p, func(b *taskblock.Block) {
			b.Run(func(*pool.Worker) {
				ran.Add(1)
				b.Run(func(*pool.Worker) { ran.Add(1) })
			})
		})
		if got := ran.Load(); got != 2 {
			t.Errorf("workers=%d: Run from a task: %d tasks ran, want 2", n, got)
		}
		err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
			b.Go(func(*pool.Worker) error {
				b.Go(func(*pool.Worker) error { return errRunGo })
				return nil
			})
			return nil
		})
		if !errors.Is(err, errRunGo) {
			t.Errorf("workers=%d: Go from a task: DefineErr = %v, want errRunGo", n, err)
		}
		p.Close()
	}
}

// The reproducer, as a test: a block of 500 tasks that each call
// b.Run three times, nested, many times over, on 1, 2 and 4 workers: every
// task runs exactly once and Define never waits for a task that will not
// run (it used to hang in 1 run of 23 when Run guessed which deque to use).
func TestRunFromTasksEveryTaskOnce(t *testing.T) {
	reps := fjtest.Small(200, 20)
	if fjtest.Long() {
		reps = 2000
	}
	fjtest.Deadline(t, 120*time.Second)
	for _, n := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(n))
		for r := 0; r < reps; r++ {
			const tasks = 500
			var counts [tasks * 4]atomic.Int32
			taskblock.Define(p, func(b *taskblock.Block) {
				for i := 0; i < tasks; i++ {
					b.Run(func(*pool.Worker) {
						counts[4*i].Add(1)
						for k := 1; k <= 3; k++ {
							b.Run(func(*pool.Worker) { counts[4*i+k].Add(1) })
						}
					})
				}
			})
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers=%d rep %d: task %d ran %d times, want once", n, r, i, c)
				}
			}
		}
		p.Close()
	}
}

// Run from a goroutine that is not running a task of the block's pool
// panics, every time, in every build, naming the mistake; so does a Run on
// a block that has ended.
func TestRunFromForeignGoroutinePanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < 100; i++ {
		var got any
		taskblock.Define(p, func(b *taskblock.Block) {
			done := make(chan any)
			go func() {
				defer func() { done <- recover() }()
				b.Run(func(*pool.Worker) {})
			}()
			got = <-done
		})
		if msg := panicMessage(got); !strings.Contains(msg, "not running a task of the block's pool") {
			t.Fatalf("Run from a foreign goroutine: panic %q, want the message naming the mistake", msg)
		}
	}
	var kept *taskblock.Block
	taskblock.Define(p, func(b *taskblock.Block) { kept = b })
	p.Run(func(*pool.Worker) {
		if msg := panicMessage(catch(func() { kept.Run(func(*pool.Worker) {}) })); !strings.Contains(msg, "returned") {
			t.Errorf("Run on an ended block from a task: panic %q, want one saying Define returned", msg)
		}
	})
}

// RunFrom with a worker of another pool, or a nil one, panics clearly.
func TestRunFromBadWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	q := pool.New(pool.WithWorkers(1))
	defer p.Close()
	defer q.Close()
	var other *pool.Worker
	q.Run(func(w *pool.Worker) { other = w }) // kept only to be refused
	cases := map[string]func(b *taskblock.Block){
		"nil worker":   func(b *taskblock.Block) { b.RunFrom(nil, func(*pool.Worker) {}) },
		"other pool":   func(b *taskblock.Block) { b.RunFrom(other, func(*pool.Worker) {}) },
		"nil function": func(b *taskblock.Block) { b.RunFrom(b.Worker(), nil) },
	}
	for name, f := range cases {
		msg := panicMessage(catch(func() { taskblock.Define(p, f) }))
		if !strings.Contains(msg, "RunFrom") {
			t.Errorf("%s: panic %q, want one naming RunFrom", name, msg)
		}
	}
}

// RunFrom with a worker the calling goroutine does not hold panics in
// every build (a nanosecond check): it would push onto a deque another
// goroutine owns.
func TestRunFromForeignWorkerPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var got any
	taskblock.Define(p, func(b *taskblock.Block) {
		bodyW := b.Worker()
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			b.RunFrom(bodyW, func(*pool.Worker) {})
		}()
		got = <-done
	})
	if msg := panicMessage(got); !strings.Contains(msg, "not running its task") {
		t.Fatalf("RunFrom with a worker held by another goroutine: panic %q, want the check's message", msg)
	}
}

// A single block whose tasks run tasks recursively (a binary tree of 2^16
// tasks) runs depth first on one worker: nothing goes through the injector
// but the Define itself, and the worker's deque never holds more than
// O(depth) tasks (each level leaves at most one sibling queued).
func TestOneBlockRecursiveWalkIsDepthFirst(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, form := range []string{"Run", "RunFrom"} {
		t.Run(form, func(t *testing.T) { oneBlockWalk(t, form == "Run") })
	}
}

func oneBlockWalk(t *testing.T, plainRun bool) {
	const depth = 16
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var ran atomic.Int64
	var maxQueued atomic.Int64
	taskblock.Define(p, func(b *taskblock.Block) {
		var walk func(w *pool.Worker, d int)
		walk = func(w *pool.Worker, d int) {
			ran.Add(1)
			if q := int64(schedtest.W(w).Queued()); q > maxQueued.Load() {
				maxQueued.Store(q)
			}
			if d == 0 {
				return
			}
			for range 2 {
				if plainRun {
					b.Run(func(w *pool.Worker) { walk(w, d-1) }) // finds w itself
				} else {
					b.RunFrom(w, func(w *pool.Worker) { walk(w, d-1) })
				}
			}
		}
		b.Run(func(w *pool.Worker) { walk(w, depth) })
	})
	if got, want := ran.Load(), int64(1)<<(depth+1)-1; got != want {
		t.Fatalf("%d tasks ran, want %d", got, want)
	}
	p.Close() // the counters are exact once the pool is closed
	s := p.Stats()
	t.Logf("2^%d tasks in one block on 1 worker: injector pops %d, overflows %d, most tasks queued %d",
		depth+1, s.Total.InjectorPops, s.Total.Overflows, maxQueued.Load())
	if s.Total.InjectorPops != 1 || s.Total.Overflows != 0 || s.Submitted != 1 {
		t.Errorf("injector pops %d, overflows %d, submitted %d: want 1, 0, 1 (only the Define)",
			s.Total.InjectorPops, s.Total.Overflows, s.Submitted)
	}
	if m := maxQueued.Load(); m > depth+2 {
		t.Errorf("up to %d tasks queued, want at most depth+2 = %d", m, depth+2)
	}
}

// A Goexit in the body is reported as the body's, and as a Goexit.
func TestGoexitInBodyReportedAsSuch(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	r := catch(func() {
		taskblock.Define(p, func(b *taskblock.Block) { runtime.Goexit() })
	})
	var ps taskblock.Panics
	err, _ := r.(error)
	if !errors.As(err, &ps) || len(ps) != 1 || !ps[0].Body || !errors.Is(ps[0].PanicError, pool.ErrGoexit) {
		t.Fatalf("Goexit in the body: %v, want one Panic of the body wrapping pool.ErrGoexit", r)
	}
	if msg := ps.Error(); !strings.Contains(msg, "the body called runtime.Goexit") {
		t.Errorf("message %q does not say the body called runtime.Goexit", msg)
	}
}

// Go and GoFrom, the forks of a block from DefineErr, panic like Run from a
// goroutine that is not running a task of the block's pool, every time, in
// every build, naming the mistake, and start nothing: Go from a goroutine
// the body started, or from a task of another pool; GoFrom given the body's
// worker on a goroutine that does not hold it.
func TestGoFromForeignGoroutinePanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	q := pool.New(pool.WithWorkers(1))
	defer q.Close()
	const foreign = "Go called from a goroutine that is not running a task of the block's pool"
	cases := []struct {
		name, want string
		fork       func(b *taskblock.Block, f func(*pool.Worker) error) any
	}{
		{"Go from a goroutine", foreign, func(b *taskblock.Block, f func(*pool.Worker) error) any {
			done := make(chan any)
			go func() {
				defer func() { done <- recover() }()
				b.Go(f)
			}()
			return <-done
		}},
		{"Go from a task of another pool", foreign, func(b *taskblock.Block, f func(*pool.Worker) error) (got any) {
			q.Run(func(*pool.Worker) { got = catch(func() { b.Go(f) }) })
			return got
		}},
		{"GoFrom from a goroutine", "taskblock.Block.GoFrom with the *pool.Worker", func(b *taskblock.Block, f func(*pool.Worker) error) any {
			bodyW := b.Worker()
			done := make(chan any)
			go func() {
				defer func() { done <- recover() }()
				b.GoFrom(bodyW, f)
			}()
			return <-done
		}},
	}
	for _, c := range cases {
		for i := 0; i < 50; i++ {
			var got any
			var ran atomic.Int64
			err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
				got = c.fork(b, func(*pool.Worker) error { ran.Add(1); return errRunGo })
				return nil
			})
			msg := panicMessage(got)
			if !strings.Contains(msg, c.want) {
				t.Fatalf("%s: panic %q, want the message naming the mistake (%q)", c.name, msg, c.want)
			}
			if c.want != foreign && !strings.Contains(msg, "not running its task") {
				t.Fatalf("%s: panic %q, want the worker check's message", c.name, msg)
			}
			if err != nil || ran.Load() != 0 {
				t.Fatalf("%s: DefineErr = %v with %d tasks run, want nil and none: the refused Go must start nothing", c.name, err, ran.Load())
			}
		}
	}
}

// A Block kept past its Define: the kind of Define that made it, and the
// worker that ran its body (what Worker must go on answering).
type keptBlock struct {
	b    *taskblock.Block
	kind string // "Define" or "DefineErr"
	home *pool.Worker
	// For TestStaleBlockRacingReuse: a use of b has been made, b's
	// Define has returned, and b has been used since by a goroutine
	// outside the pool and by a task of another worker.
	used, ended, outsideUsed, taskUsed atomic.Bool
}

var blockKinds = []string{"Define", "DefineErr"}

// defineKind runs body in a block from Define or DefineErr, on r.
func defineKind(r pool.Runner, kind string, body func(b *taskblock.Block)) {
	if kind == "Define" {
		taskblock.Define(r, body)
		return
	}
	if err := taskblock.DefineErr(r, func(b *taskblock.Block) error { body(b); return nil }); err != nil {
		panic(err)
	}
}

// startTask starts a task of b that adds one to ran, with Run or, in a
// block from DefineErr, Go.
func startTask(b *taskblock.Block, kind string, ran *atomic.Int64) {
	if kind == "Define" {
		b.Run(func(*pool.Worker) { ran.Add(1) })
	} else {
		b.Go(func(*pool.Worker) error { ran.Add(1); return nil })
	}
}

// staleOps are the methods of a Block; those after Wait answer rather
// than panic.
var staleOps = []string{"Run", "RunFrom", "Go", "GoFrom", "Wait", "Canceled", "Worker"}

// useStale calls op on k.b from the calling goroutine, which holds w (nil
// outside the pool: RunFrom and GoFrom are then given k's home worker,
// which it does not hold), and says what happened: the panic's message,
// or what Canceled or Worker answered. A task it starts adds one to ran.
func useStale(op string, k *keptBlock, w *pool.Worker, ran *atomic.Int64) string {
	if w == nil {
		w = k.home
	}
	task := func(*pool.Worker) { ran.Add(1) }
	taskErr := func(*pool.Worker) error { ran.Add(1); return nil }
	var f func()
	switch op {
	case "Run":
		f = func() { k.b.Run(task) }
	case "RunFrom":
		f = func() { k.b.RunFrom(w, task) }
	case "Go":
		f = func() { k.b.Go(taskErr) }
	case "GoFrom":
		f = func() { k.b.GoFrom(w, taskErr) }
	case "Wait":
		f = k.b.Wait
	case "Canceled":
		return fmt.Sprintf("Canceled() = %v", k.b.Canceled())
	case "Worker":
		return fmt.Sprintf("Worker() is the body's: %v", k.b.Worker() == k.home)
	default:
		panic("useStale: no op " + op)
	}
	r := catch(f)
	if r == nil {
		return "no panic"
	}
	if msg := panicMessage(r); msg != "" {
		return msg
	}
	return fmt.Sprintf("a panic with %#v", r)
}

// staleWant is what useStale must say for op on a Block of kind whose
// Define has returned: the panic that names that Define (before any
// other check: Go on a Block from Define says it has returned, not to use
// DefineErr), or the answers of a block that did not fail.
func staleWant(op, kind string) string {
	switch op {
	case "Canceled":
		return "Canceled() = false"
	case "Worker":
		return "Worker() is the body's: true"
	}
	return "taskblock: " + op + " on a block whose " + kind + " has returned"
}

// liveWant is part of what useStale must say for op on a live Block of
// kind, from a goroutine outside the pool.
func liveWant(op, kind string) string {
	switch {
	case (op == "Go" || op == "GoFrom") && kind == "Define":
		return op + " on a block from Define; use DefineErr"
	case op == "Run" || op == "Go":
		return op + " called from a goroutine that is not running a task of the block's pool"
	case op == "RunFrom" || op == "GoFrom":
		return "taskblock.Block." + op + " with the *pool.Worker"
	case op == "Wait":
		return "only the body may call Wait"
	}
	return staleWant(op, kind)
}

// A Block kept past its Define names that Define when used, whatever
// block its state serves since: every method, on a Block from Define and
// from DefineErr, on the same worker after its Define returned, from a
// later task there, and in a Define or DefineErr that reuses its state
// (Go on a kept Block from DefineErr in a Define used to say "use
// DefineErr"). No task of the kept Block runs, and the reusing block's
// own tasks do; Go on it, if it is a Define's, still says to use
// DefineErr.
func TestStaleBlockNamesItsDefine(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	// One worker: every task runs on the body's worker, and each state
	// is reused by the next Define.
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var staleRan atomic.Int64
	check := func(k *keptBlock, w *pool.Worker, where string) {
		t.Helper()
		for _, op := range staleOps {
			if got, want := useStale(op, k, w, &staleRan), staleWant(op, k.kind); got != want {
				t.Errorf("%s on a kept Block from %s, %s: %q, want %q", op, k.kind, where, got, want)
			}
		}
	}
	for _, kind := range blockKinds {
		for _, reuse := range append([]string{""}, blockKinds...) {
			k := &keptBlock{kind: kind}
			p.Run(func(w *pool.Worker) {
				var ran atomic.Int64
				defineKind(w, kind, func(b *taskblock.Block) {
					k.b, k.home = b, b.Worker()
					startTask(b, kind, &ran)
				})
				if reuse == "" {
					check(k, w, "on its worker after its Define returned")
					return
				}
				defineKind(w, reuse, func(b *taskblock.Block) {
					if !taskblock.SameState(k.b, b) {
						t.Fatalf("the %s after a %s did not reuse its state", reuse, kind)
					}
					check(k, w, "in a "+reuse+" that reuses its state")
					startTask(b, reuse, &ran)
					if reuse == "Define" {
						msg := panicMessage(catch(func() { b.Go(func(*pool.Worker) error { return nil }) }))
						if want := "taskblock: Go on a block from Define; use DefineErr"; !strings.HasPrefix(msg, want) {
							t.Errorf("Go on a live block from Define: %q, want %q", msg, want)
						}
					}
				})
				if ran.Load() != 2 {
					t.Errorf("%s then %s: %d of their 2 tasks ran", kind, reuse, ran.Load())
				}
			})
			if reuse == "" {
				p.Run(func(w *pool.Worker) { check(k, w, "from a later task on its worker") })
			}
		}
	}
	if n := staleRan.Load(); n != 0 {
		t.Errorf("%d tasks of kept Blocks ran", n)
	}
}

// A Block kept past its Define and used, in a loop, by a goroutine
// outside the pool (from while its body runs) and by a task of another
// worker, while its worker goes on defining blocks on its state, panics
// with the documented message every time, answers Canceled and Worker as
// for the block that ended, and starts no task; and the race detector
// reports nothing inside fj (no misuse the docs say panics may make it
// report one): what a kept Block reads of its state, a later block does
// not write, or not plainly. Each method, on a Block from Define and from
// DefineErr, reused by both.
func TestStaleBlockRacingReuse(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	rounds, defines := fjtest.Small(4, 2), fjtest.Small(500, 100)
	for _, kind := range blockKinds {
		for _, op := range staleOps {
			t.Run(kind+"/"+op, func(t *testing.T) { staleRacingReuse(t, p, kind, op, rounds, defines) })
		}
	}
}

func staleRacingReuse(t *testing.T, p *pool.Pool, kind, op string, rounds, defines int) {
	var kept atomic.Pointer[keptBlock]
	var stop atomic.Bool
	var staleRan, ownRan, reused, outsideUses, taskUses atomic.Int64
	var defined, ownWant int64 // the home worker's
	var bad atomic.Pointer[string]
	report := func(where, got, want string, exact bool) {
		if got != want && (exact || !strings.Contains(got, want)) {
			msg := fmt.Sprintf("%s: %q, want %q", where, got, want)
			bad.CompareAndSwap(nil, &msg)
		}
	}
	outsideDone := make(chan struct{})
	go func() { // a goroutine outside the pool
		defer close(outsideDone)
		for !stop.Load() {
			k := kept.Load()
			if k == nil {
				runtime.Gosched()
				continue
			}
			ended := k.ended.Load()
			got := useStale(op, k, nil, &staleRan)
			if ended {
				report(op+" from a goroutine outside the pool", got, staleWant(op, kind), true)
				k.outsideUsed.Store(true)
			} else if got != staleWant(op, kind) {
				report(op+" from a goroutine outside the pool, while the body runs", got, liveWant(op, kind), false)
			}
			k.used.Store(true)
			outsideUses.Add(1)
		}
	}()
	taskblock.Define(p, func(outer *taskblock.Block) {
		hw := outer.Worker()
		var stolen atomic.Bool
		outer.Run(func(w *pool.Worker) {
			if w.ID() == hw.ID() {
				return // not stolen: nothing to race with
			}
			stolen.Store(true)
			for !stop.Load() {
				// A task of another worker: it would be the block's if
				// it used a live one, so it uses only those ended.
				if k := kept.Load(); k != nil && k.ended.Load() {
					report(op+" from a task of another worker", useStale(op, k, w, &staleRan), staleWant(op, kind), true)
					k.taskUsed.Store(true)
					taskUses.Add(1)
				}
			}
		})
		for i := 0; !stolen.Load() && i < 100_000; i++ {
			spin(hw)
		}
		if !stolen.Load() {
			stop.Store(true)
			t.Fatalf("the task that uses kept Blocks from another worker was never stolen")
		}
		for r := 0; r < rounds; r++ {
			k := &keptBlock{kind: kind}
			defineKind(hw, kind, func(b *taskblock.Block) {
				k.b, k.home = b, b.Worker()
				kept.Store(k)
				for !k.used.Load() {
					runtime.Gosched()
				}
			})
			k.ended.Store(true)
			// At least defines Defines, and on until both have used
			// the ended Block (on 2 shared cores either may wait for
			// one).
			for i := 0; i < defines || !k.outsideUsed.Load() || !k.taskUsed.Load(); i++ {
				reuse := blockKinds[i%2]
				defineKind(hw, reuse, func(b *taskblock.Block) {
					if taskblock.SameState(k.b, b) {
						reused.Add(1)
					}
					if i%4 < 2 {
						startTask(b, reuse, &ownRan)
						ownWant++
					}
				})
				defined++
				if i%64 == 63 {
					runtime.Gosched()
				}
			}
		}
		stop.Store(true)
	})
	<-outsideDone
	if msg := bad.Load(); msg != nil {
		t.Error(*msg)
	}
	if n := staleRan.Load(); n != 0 {
		t.Errorf("%d tasks of kept Blocks ran", n)
	}
	if got, want := ownRan.Load(), ownWant; got != want {
		t.Errorf("%d tasks of the reusing blocks ran, want %d", got, want)
	}
	if reused.Load() == 0 {
		t.Errorf("no Define reused a kept Block's state: nothing raced with the reuse")
	}
	t.Logf("%d of %d Defines reused a kept state; %d uses from a goroutine outside the pool, %d from a task of another worker",
		reused.Load(), defined, outsideUses.Load(), taskUses.Load())
}
