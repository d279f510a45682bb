package wsdeque

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// fuzzCapacities are the capacities FuzzWSDeque chooses from with the low
// bits of its first byte; 0 and 3 are rounded up.
var fuzzCapacities = []int{0, 1, 2, 3, 4, 8, 16}

// fuzzFar is the first byte's bit that starts the deque's indices far past
// Cap() (and off any multiple of it).
const fuzzFar = 0x80

// Operation bytes for FuzzWSDeque: the low three bits choose the operation,
// the next four give its argument where it has one. The owner's operations
// and steals are interleaved from one goroutine.
const (
	fzPush         = iota // push n = arg%8+1 new items, privately
	fzPop                 // pop one
	fzPublish             // publish
	fzSteal               // steal: arg%4 == 0 one (D6), 1 one by D8, 2 or 3 a batch of len arg/4+1
	fzTakeOldest          // TakeOldest into a slice of len arg (0..15)
	fzPushReusable        // push the item Reusable returns (a new one if none)
	fzPushPublish         // push n = arg%8+1 new items, publishing each (the public deque's Push)
	fzPopN                // pop n = arg%8+1
)

// maxFuzzOps is how many operation bytes FuzzWSDeque looks at: with at most
// 16 slots and up to 8 pushes per byte, 64 operations fill, drain and wrap a
// deque many times over, and the fuzzer's minimization of new inputs (cubic
// in their length) stays quick.
const maxFuzzOps = 64

func fzOp(op, arg int) byte { return byte(arg<<3 | op) }

// FuzzWSDeque interprets its input as a capacity byte followed by
// operations, applies them to a Deque and to the reference model, and fails
// at the first divergence in a result, a count, an index or a slot (see
// checker).
func FuzzWSDeque(f *testing.F) {
	seq := func(parts ...any) []byte {
		var b []byte
		for _, p := range parts {
			switch p := p.(type) {
			case byte:
				b = append(b, p)
			case int:
				b = append(b, byte(p))
			case []byte:
				b = append(b, p...)
			}
		}
		return b
	}
	rep := func(n int, ops ...byte) []byte {
		var b []byte
		for range n {
			b = append(b, ops...)
		}
		return b
	}
	push := func(n int) byte { return fzOp(fzPush, n-1) }
	take := func(n int) byte { return fzOp(fzTakeOldest, n) }
	f.Add([]byte{})
	// Everything on an empty deque, then a push after it.
	f.Add(seq(0, fzPop, fzSteal, fzPublish, take(4), fzPushReusable, fzPop, fzPop))
	// Private items are not stealable until published, then oldest first.
	f.Add(seq(4, push(3), fzSteal, take(8), fzPublish, push(1), fzSteal, fzSteal, fzSteal, fzSteal, fzPop))
	// Fill capacity 8 privately past full, publish, take half, steal, pop.
	f.Add(seq(5, push(8), push(2), fzPublish, take(15), take(15), fzSteal, fzPopN|7<<3))
	// The last published item popped by its owner, then Reusable and reuse.
	f.Add(seq(1, rep(6, fzOp(fzPushPublish, 0), fzPop, fzPushReusable, fzPublish, fzSteal)))
	// Private items above published ones, popped through both ends.
	f.Add(seq(4, fzOp(fzPushPublish, 1), push(2), fzPop, fzSteal, fzPop, fzPop, fzPop))
	// Far indices: wrap capacity 2 with a resident item and recycled pushes.
	f.Add(seq(2|fuzzFar, push(1), rep(12, fzPushReusable, fzPublish, fzSteal)))
	// Capacity 16 full of published items, halved repeatedly.
	f.Add(seq(6|fuzzFar, fzOp(fzPushPublish, 7), fzOp(fzPushPublish, 7), rep(5, take(15))))

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		capacity := fuzzCapacities[int(data[0]&0x7f)%len(fuzzCapacities)]
		start := int64(0)
		if data[0]&fuzzFar != 0 {
			start = 1<<40 + int64(data[0])
		}
		c := newChecker(t, capacity, start, fmt.Sprintf("cap=%d start=%d", capacity, start))
		ops := data[1:]
		if len(ops) > maxFuzzOps {
			ops = ops[:maxFuzzOps]
		}
		for _, b := range ops {
			arg := int(b >> 3 & 15)
			switch b & 7 {
			case fzPush:
				for range arg%8 + 1 {
					c.push()
				}
			case fzPop:
				c.pop()
			case fzPublish:
				c.publish()
			case fzSteal:
				switch arg % 4 {
				case 0:
					c.steal()
				case 1:
					c.stealPrivate()
				default:
					c.stealBatch(arg/4 + 1)
				}
			case fzTakeOldest:
				c.takeOldest(arg)
			case fzPushReusable:
				c.pushReusable()
			case fzPushPublish:
				for range arg%8 + 1 {
					c.push()
					c.publish()
				}
			case fzPopN:
				for range arg%8 + 1 {
					c.pop()
				}
			}
		}
		c.drain(rand.New(rand.NewPCG(uint64(len(data)), 0)))
	})
}
