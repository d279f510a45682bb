package ignore

//fjvet:file-ignore blocking this file blocks without sections on purpose

import "github.com/forkjoin/fj/pool"

func whole(w *pool.Worker, ch chan int) {
	<-ch
	ch <- 1
}
