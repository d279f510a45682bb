//go:build unix

package sched_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

//fjvet:file-ignore blocking the test blocks without a section on purpose

// A task in a system call is no block (stall.md, Limits: a system call
// ends by itself, and the look cannot tell one long call from many short
// ones): with work queued behind it for twenty ticks of the monitor, its
// worker is not handed over and nothing is reported. The same task
// waiting on a channel is a block, so that the test can tell the two
// apart. The call is a read of a pipe in blocking mode, which waits in
// the kernel (a goroutine in a system call) until the test writes to it.
func TestStallSystemCallIsNoBlock(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("no look on this platform (stall.md, Limits)")
	}
	fjtest.Deadline(t, 60*time.Second)
	for _, inKernel := range []bool{true, false} {
		var r reports
		p := stallPool(1, &r)
		sp := sched.From[sched.Pool](p)
		var fds [2]int
		if err := syscall.Pipe(fds[:]); err != nil {
			t.Fatal(err)
		}
		started := make(chan struct{})
		done := make(chan struct{})
		ch := make(chan int)
		go func() {
			defer close(done)
			p.Run(func(w *pool.Worker) {
				close(started)
				read := func() {
					var b [1]byte
					for {
						if _, err := syscall.Read(fds[0], b[:]); err != syscall.EINTR {
							return
						}
					}
				}
				if inKernel {
					read()
				} else {
					stallReceive(ch)
				}
			})
		}()
		<-started
		queued := make(chan struct{})
		go func() { p.Run(func(*pool.Worker) {}); close(queued) }()
		// Twenty ticks with the work queued, or until it ran.
	wait:
		for _, _, ticks, _ := sched.StallWatch(sp); ticks < 20; _, _, ticks, _ = sched.StallWatch(sp) {
			select {
			case <-queued:
				break wait
			default:
				runtime.Gosched()
			}
		}
		s := p.Stats()
		if inKernel {
			if _, err := syscall.Write(fds[1], []byte{1}); err != nil {
				t.Fatal(err)
			}
		} else {
			<-queued // run by the goroutine the worker was handed to
			close(ch)
		}
		<-done
		<-queued
		p.Close()
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		n := len(r.get())
		if inKernel && (n != 0 || s.Stalls != 0 || s.SparesStarted != 0) {
			t.Errorf("a system call: %d reports, %d stalls, %d hand-overs; want none", n, s.Stalls, s.SparesStarted)
		}
		if !inKernel && (s.Stalls == 0 || s.SparesStarted == 0) {
			t.Errorf("a channel receive: %d stalls, %d hand-overs; want at least one each", s.Stalls, s.SparesStarted)
		}
	}
}
