package taskblock_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A Block is a scope: nothing started in it outlives Define, so its tasks
// may fill in the enclosing function's variables, each its own, and the
// code after Define reads them without further synchronization.
func ExampleBlock() {
	p := pool.New()
	defer p.Close()

	words := []string{"fork", "join", "steal"}
	var upper []string
	var totalLen int
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(*pool.Worker) {
			for _, w := range words {
				upper = append(upper, strings.ToUpper(w))
			}
		})
		b.Run(func(*pool.Worker) {
			for _, w := range words {
				totalLen += len(w)
			}
		})
	})
	fmt.Println(upper, totalLen)
	// Output: [FORK JOIN STEAL] 13
}

// Canceled reports that a task failed (or panicked). After Wait, the body
// knows whether its first phase failed and can skip the second; a long task
// can poll it to give up early.
func ExampleBlock_Canceled() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	shards := []string{"a.db", "b.db", "c.db"}
	err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
		for _, name := range shards {
			b.Go(func(*pool.Worker) error {
				if name == "b.db" {
					return fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
				}
				for step := 0; step < 1000 && !b.Canceled(); step++ {
					// ... load a chunk of the shard ...
				}
				return nil
			})
		}
		b.Wait()
		if b.Canceled() {
			fmt.Println("loading failed, not indexing")
			return nil
		}
		// ... phase 2: index the loaded shards ...
		return nil
	})
	fmt.Println(err, errors.Is(err, fs.ErrNotExist))
	// Output:
	// loading failed, not indexing
	// open b.db: file does not exist true
}

// Go is errgroup's Go on fj: tasks return errors instead of panicking,
// each task writes its own result, and DefineErr returns the first error
// (nil when every task succeeded).
func ExampleBlock_Go() {
	p := pool.New()
	defer p.Close()

	parseAll := func(fields []string) ([]int, error) {
		nums := make([]int, len(fields))
		err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
			for i, f := range fields {
				b.Go(func(*pool.Worker) error {
					var err error
					nums[i], err = strconv.Atoi(f)
					return err
				})
			}
			return nil
		})
		return nums, err
	}
	fmt.Println(parseAll([]string{"1", "22", "333"}))
	// After a failure, the tasks that had not started are skipped: nums
	// is incomplete, so only the error is of use.
	_, err := parseAll([]string{"1", "two", "3"})
	fmt.Println(err)
	// Output:
	// [1 22 333] <nil>
	// strconv.Atoi: parsing "two": invalid syntax
}

// Run starts a task from the body; Define waits for all of them. Only the
// body calls Run: a task that starts more tasks uses RunFrom with its own
// worker (see the RunFrom example).
func ExampleBlock_Run() {
	p := pool.New()
	defer p.Close()

	squares := make([]int, 6)
	taskblock.Define(p, func(b *taskblock.Block) {
		for i := range squares {
			b.Run(func(*pool.Worker) { squares[i] = i * i })
		}
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25]
}

// The body runs on a worker too: Worker hands it to nested parallel calls,
// which then fork onto that worker instead of blocking it. Here the body
// sorts one slice while a task of the block sorts another.
func ExampleBlock_Worker() {
	p := pool.New()
	defer p.Close()

	names := []string{"join", "fork", "steal"}
	sizes := []int{64, 8, 1024, 2}
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { parallel.Sort(w, names) })
		parallel.Sort(b.Worker(), sizes)
	})
	fmt.Println(names, sizes)
	// Output: [fork join steal] [2 8 64 1024]
}

// Each Panic says whether the body or a task raised it, and embeds the
// *pool.PanicError with the value and the stack where it was raised.
func ExamplePanic() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	defer func() {
		ps, _ := recover().(taskblock.Panics)
		for _, pe := range ps {
			fmt.Println(pe.Body, pe.Value, len(pe.Stack) > 0)
		}
	}()
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(*pool.Worker) { panic("index out of range in task") })
	})
	// Output: false index out of range in task true
}

// The text of Panics starts with a summary, one line per panic, and
// continues with each panic's stack: log its first lines for a short
// message, all of it to debug.
func ExamplePanics_Error() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	defer func() {
		err := recover().(error)
		summary, _, _ := strings.Cut(err.Error(), "\n\n")
		fmt.Println(summary)
	}()
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(*pool.Worker) { panic("disk full") })
		b.Wait() // the task has panicked by now
		panic("giving up")
	})
	// Output:
	// taskblock: 2 panics:
	//   [1] a task panicked: disk full
	//   [2] the body panicked: giving up
}

// Unwrap exposes each captured panic as an error, so errors.Is and
// errors.As look into all of them: a task that panics with a sentinel
// error can be recognized after Define, whatever else panicked.
func ExamplePanics_Unwrap() {
	errCorrupt := errors.New("corrupt record")

	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	defer func() {
		ps := recover().(taskblock.Panics)
		fmt.Println(len(ps.Unwrap()), errors.Is(ps, errCorrupt))
		var pe *pool.PanicError
		if errors.As(ps, &pe) {
			fmt.Println("first:", pe.Value)
		}
	}()
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(*pool.Worker) { panic(fmt.Errorf("record 12: %w", errCorrupt)) })
		b.Wait()
		panic("giving up")
	})
	// Output:
	// 2 true
	// first: record 12: corrupt record
}
