// Package blocking holds the blocking rule's findings: a call that
// blocks, in a task, outside pool.Blocking.
package blocking

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A function whose first parameter is a worker is a task.
func task(w *pool.Worker, ch chan int, wg *sync.WaitGroup, cond *sync.Cond) int {
	time.Sleep(time.Millisecond) // want `blocking: time.Sleep in task \(a task: its first parameter is a \*pool.Worker\): a task holds its worker while it blocks`
	v := <-ch                    // want `blocking: a channel receive`
	ch <- v                      // want `blocking: a channel send`
	v, ok := <-ch                // want `blocking: a channel receive`
	for x := range ch {          // want `blocking: a range over a channel .* receive each value in a section`
		v += x
	}
	select { // want `blocking: a select without a default`
	case x := <-ch:
		v += x
	case ch <- 1:
	}
	wg.Wait()   // want `blocking: sync.WaitGroup.Wait`
	cond.Wait() // want `blocking: sync.Cond.Wait`
	if ok {
		return v
	}
	return 0
}

// The table's file, network and HTTP calls.
func files(w *pool.Worker, f *os.File, conn net.Conn, c *http.Client, req *http.Request) {
	data, err := os.ReadFile("x") // want `blocking: os.ReadFile`
	_, _ = data, err
	g, _ := os.Open("x") // want `blocking: os.Open`
	_ = g
	f.Read(nil)                      // want `blocking: os.File.Read`
	conn.Write(nil)                  // want `blocking: net.Conn.Write`
	net.Dial("tcp", "")              // want `blocking: net.Dial`
	resp, _ := http.Get("http://x")  // want `blocking: http.Get`
	io.ReadAll(resp.Body)            // want `blocking: io.ReadAll`
	c.Do(req)                        // want `blocking: http.Client.Do`
	io.Copy(f, conn)                 // want `blocking: io.Copy`
	io.ReadAll(bytes.NewReader(nil)) // not a stream: not reported
}

// A loop body, a Join half, a task block's body and task.
func bodies(p *pool.Pool, ch chan int) {
	parallel.For(p, 0, 10, func(_ *pool.Worker, i int) {
		ch <- i // want `blocking: a channel send in a function run by parallel.For`
	})
	forkjoin.Join(pool.Enter(p),
		func(*pool.Worker) int { return <-ch }, // want `blocking: a channel receive in a function run by forkjoin.Join`
		func(*pool.Worker) int { return 0 })
	taskblock.Define(p, func(b *taskblock.Block) {
		<-ch // want `blocking: a channel receive in a function run by taskblock.Define`
		b.Run(func(*pool.Worker) {
			time.Sleep(time.Millisecond) // want `blocking: time.Sleep in a function run by taskblock.Block.Run`
		})
	})
}

// A helper of the package that blocks, called from a task.
func receive(ch chan int) int { return <-ch }

func relay(ch chan int) int { return receive(ch) }

func helpers(w *pool.Worker, ch chan int) int {
	a := receive(ch) // want `blocking: receive, which blocks \(a channel receive at blocking.go:\d+\) in helpers`
	b := relay(ch)   // want `blocking: relay, which blocks \(through receive: a channel receive at blocking.go:\d+\)`
	return a + b
}

// The errgroup port with its sections taken out: the body closure is
// called outside a section.
func sleepCtx(done <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-done:
		return io.EOF
	}
}

func port(p *pool.Pool, done <-chan struct{}, section bool) error {
	return parallel.ForErr(p, 0, 200, func(_ *pool.Worker, i int) error {
		var err error
		body := func() { err = sleepCtx(done, time.Millisecond) }
		if section {
			pool.Blocking(body)
		} else {
			body() // want `blocking: body, which blocks \(through sleepCtx: a select without a default`
		}
		err = sleepCtx(done, time.Millisecond) // want `blocking: sleepCtx, which blocks`
		return err
	})
}
