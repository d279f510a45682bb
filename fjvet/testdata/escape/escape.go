// Package escape holds the escaping-block findings: a task block kept
// past its Define, or handed to another goroutine.
package escape

import (
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

var global *taskblock.Block

type holder struct{ b *taskblock.Block }

func escapes(p *pool.Pool, h *holder, fs *[]func()) *taskblock.Block {
	var kept *taskblock.Block
	ch := make(chan *taskblock.Block, 1)
	taskblock.Define(p, func(b *taskblock.Block) {
		kept = b                                     // want `escaping-block: the \*taskblock.Block b is stored in kept, declared outside the function it was given to`
		global = b                                   // want `escaping-block: the \*taskblock.Block b is stored in global`
		h.b = b                                      // want `escaping-block: the \*taskblock.Block b is stored in h.b`
		ch <- b                                      // want `escaping-block: the \*taskblock.Block b is sent on a channel`
		*fs = append(*fs, func() { b.Wait() })       // want `escaping-block: the \*taskblock.Block b is stored in \*fs`
		go func() { b.Run(func(*pool.Worker) {}) }() // want `escaping-block: the \*taskblock.Block b is used by a goroutine started with go`
		local := b
		b.Run(func(*pool.Worker) { kept = local }) // want `escaping-block: the \*taskblock.Block local is stored in kept`
	})
	return kept
}

// A helper that receives the block.
func helper(b *taskblock.Block) {
	go b.Wait() // want `escaping-block: the \*taskblock.Block b is used by a goroutine`
}

func returned(b *taskblock.Block) *taskblock.Block {
	return b // want `escaping-block: the \*taskblock.Block b is returned by returned`
}
