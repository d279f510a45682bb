package pool_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/forkjoin/fj/pool"
)

//fjvet:file-ignore blocking this example forgets a blocking section on purpose: it shows the stall report

// forgetSection runs, on p of one worker, a task that waits on a channel
// without a blocking section, and, queued behind it, the task that fills
// the channel: the stall that forgetting pool.Blocking makes. A spare
// worker runs the queued task, and both complete.
func forgetSection(p *pool.Pool) {
	ch := make(chan int)
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		p.Run(func(*pool.Worker) {
			close(started)
			<-ch // should be pool.Blocking(func() { <-ch })
		})
	}()
	<-started
	p.Run(func(*pool.Worker) { ch <- 1 }) // queued behind the blocked task
	<-done
}

// A task that blocks without a section, with the work it waits for queued
// behind it: the pool reports the stall (here to a handler instead of
// standard error) and runs the queued task on a spare worker.
func ExampleWithStallHandler() {
	var report pool.StallReport
	p := pool.New(pool.WithWorkers(1),
		pool.WithStallThreshold(10*time.Millisecond),
		pool.WithStallHandler(func(r pool.StallReport) { report = r }))
	forgetSection(p)
	p.Close() // waits for the handler too
	fmt.Printf("pool %q: %d task(s) blocked, waiting for %s; %d spare(s) ran the queued work\n",
		report.Pool, len(report.Tasks), report.Tasks[0].State, report.Spares)
	// Output: pool "fj": 1 task(s) blocked, waiting for chan receive; 1 spare(s) ran the queued work
}

// A short threshold finds a missing section sooner. Stats counts the
// stalls and the spare workers.
func ExampleWithStallThreshold() {
	p := pool.New(pool.WithWorkers(1),
		pool.WithStallThreshold(10*time.Millisecond),
		pool.WithStallHandler(func(pool.StallReport) {}))
	forgetSection(p)
	p.Close()
	s := p.Stats()
	fmt.Println("stalls:", s.Stalls, "spares started:", s.SparesStarted, "spares now:", s.Spares)
	// Output: stalls: 1 spares started: 1 spares now: 0
}

// The report names each blocked task, with its stack.
func ExampleStallReport() {
	var report pool.StallReport
	p := pool.New(pool.WithWorkers(1),
		pool.WithStallThreshold(10*time.Millisecond),
		pool.WithStallHandler(func(r pool.StallReport) { report = r }))
	forgetSection(p)
	p.Close()
	for _, t := range report.Tasks {
		fmt.Printf("worker %d: blocked receiving: %v; in forgetSection: %v\n", t.Worker,
			strings.Contains(t.Stack, "[chan receive"), strings.Contains(t.Stack, "forgetSection"))
	}
	// Output: worker 0: blocked receiving: true; in forgetSection: true
}

// StalledTask is one entry of a report: its goroutine's stack starts with
// the header runtime.Stack prints.
func ExampleStalledTask() {
	var report pool.StallReport
	p := pool.New(pool.WithWorkers(1),
		pool.WithStallThreshold(10*time.Millisecond),
		pool.WithStallHandler(func(r pool.StallReport) { report = r }))
	forgetSection(p)
	p.Close()
	t := report.Tasks[0]
	fmt.Println(strings.HasPrefix(t.Stack, fmt.Sprintf("goroutine %d [", t.Goroutine)))
	// Output: true
}

// String is the text the pool prints to standard error when it has no
// stall handler: what happened, the stacks, and the fix.
func ExampleStallReport_String() {
	var report pool.StallReport
	p := pool.New(pool.WithWorkers(1),
		pool.WithStallThreshold(10*time.Millisecond),
		pool.WithStallHandler(func(r pool.StallReport) { report = r }))
	forgetSection(p)
	p.Close()
	text := report.String()
	fmt.Println(strings.Contains(text, `a task of pool "fj" waited without pool.Blocking`))
	fmt.Println(strings.Contains(text, "wrap the blocking call"))
	// Output:
	// true
	// true
}
