// Package spawn holds the unjoined-spawn findings.
package spawn

import (
	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

func one(*pool.Worker) int { return 1 }

func spawns(w *pool.Worker) int {
	forkjoin.Spawn(w, one)      // want `unjoined-spawn: the Task of forkjoin.Spawn is dropped`
	_ = forkjoin.Spawn(w, one)  // want `unjoined-spawn: the Task of forkjoin.Spawn is assigned to _`
	t := forkjoin.Spawn(w, one) // want `unjoined-spawn: the Task of forkjoin.Spawn is kept in t, which nothing reads`
	_ = t
	var u = forkjoin.Spawn(w, one) // want `unjoined-spawn: .* kept in u`
	_ = u
	v := forkjoin.Spawn(w, one)
	return v.Join(w)
}
