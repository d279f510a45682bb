// Package ignore checks the //fjvet:ignore directives.
package ignore

import (
	"time"

	"github.com/forkjoin/fj/pool"
)

func task(w *pool.Worker, ch chan int) {
	<-ch //fjvet:ignore blocking the test blocks on purpose
	//fjvet:ignore blocking the directive above a statement
	<-ch
	<-ch //fjvet:ignore captured-worker another rule's directive silences nothing // want `blocking: a channel receive`
	//fjvet:ignore blocking,captured-worker two rules
	ch <- 1
	time.Sleep(time.Millisecond) // want `blocking: time.Sleep`
	//fjvet:ignore nosuchrule // want `the directive names no rule`
}
