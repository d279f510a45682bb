package pool_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// BlockingValue is a section, as Blocking is: a producer and a consumer
// that pass values through an unbuffered channel, each in its own task on
// a pool of one worker, complete only if each wait gives the worker up.
// The values and errors f returns come back unchanged, in a task and
// outside one.
func TestBlockingValue(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	errClosed := errors.New("closed")
	ch := make(chan int)
	var got []int
	var sendErr, recvErr error
	parallel.Do(p,
		func(*pool.Worker) {
			for i := 1; i <= 5; i++ {
				if _, sendErr = pool.BlockingValue(func() (struct{}, error) { ch <- i; return struct{}{}, nil }); sendErr != nil {
					return
				}
			}
			close(ch)
		},
		func(*pool.Worker) {
			for {
				v, err := pool.BlockingValue(func() (int, error) {
					if v, ok := <-ch; ok {
						return v, nil
					}
					return -1, errClosed
				})
				if err != nil {
					recvErr = err
					if v != -1 {
						t.Errorf("BlockingValue returned %d with the error, want f's -1", v)
					}
					return
				}
				got = append(got, v)
			}
		})
	if sendErr != nil || recvErr != errClosed || len(got) != 5 || got[0] != 1 || got[4] != 5 {
		t.Errorf("sends: %v; received %v, then %v (want 1..5, then errClosed)", sendErr, got, recvErr)
	}
	if v, err := pool.BlockingValue(func() (string, error) { return "outside", nil }); v != "outside" || err != nil {
		t.Errorf("outside a task: %q, %v", v, err)
	}
	msg := panicMessage(catch(func() { pool.BlockingValue[int](nil) }))
	if !strings.Contains(msg, "BlockingValue with a nil function") {
		t.Errorf("BlockingValue(nil): panic %q", msg)
	}
}
