package deque

import (
	"math/rand/v2"
	"testing"
)

// fuzzCapacities are the capacities FuzzDeque chooses from with its first
// byte; 0 and 3 check that rounded-up capacities behave like the real thing.
var fuzzCapacities = []int{0, 1, 2, 3, 4, 8, 16}

// Operation bytes for FuzzDeque: the low two bits choose the operation; for
// a push, the next three bits give a repeat count, so short inputs can
// still fill a deque.
const (
	opPush  = 0
	opPop   = 1
	opSteal = 2
	opLen   = 3
)

// maxFuzzOps is how many operation bytes FuzzDeque looks at.
const maxFuzzOps = 64

// pushN encodes a push of n items (1..8).
func pushN(n int) byte { return byte((n-1)<<2 | opPush) }

// FuzzDeque interprets its input as a capacity byte followed by operations,
// applies them to a Deque from one goroutine and to the reference model,
// and fails at the first divergence of a return value or of Len.
func FuzzDeque(f *testing.F) {
	repeat := func(n int, ops ...byte) []byte {
		var b []byte
		for i := 0; i < n; i++ {
			b = append(b, ops...)
		}
		return b
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	f.Add([]byte{})
	// Operations on an empty deque, then pushes after them: an empty Pop
	// must leave the deque exactly as it was.
	f.Add([]byte{0, opPop, opSteal, opLen, opPush, opLen, opPop, opPop, opPush, opSteal, opSteal})
	// Fill a capacity-4 deque past full, then drain by steals past empty.
	f.Add(cat([]byte{4}, repeat(6, opPush), repeat(6, opSteal), []byte{opLen}))
	// Fill capacity 16 with bulk pushes, then drain by pops.
	f.Add(cat([]byte{6}, repeat(3, pushN(8)), repeat(18, opPop)))
	// Alternate push/pop and push/steal on capacity 1.
	f.Add(cat([]byte{1}, repeat(8, opPush, opPop), repeat(8, opPush, opSteal)))
	// Wrap around capacity 2 many times with a resident item.
	f.Add(cat([]byte{2, opPush}, repeat(20, opPush, opSteal, opLen)))
	// Capacity 3 (rounds to 4): fill, steal one, refill, pop all.
	f.Add(cat([]byte{3}, repeat(5, opPush), []byte{opSteal, opPush, opPush}, repeat(5, opPop)))

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		c := newChecked(t, fuzzCapacities[int(data[0])%len(fuzzCapacities)])
		ops := data[1:]
		// With at most 16 slots and up to 8 pushes per byte, 64 operations
		// fill, drain and wrap a deque many times over. Ignoring the rest
		// keeps the fuzzer's minimization of new inputs (which is cubic
		// in the input length) from stalling the run for many seconds.
		if len(ops) > maxFuzzOps {
			ops = ops[:maxFuzzOps]
		}
		for _, b := range ops {
			switch b & 3 {
			case opPush:
				for n := int(b>>2&7) + 1; n > 0; n-- {
					c.push()
				}
			case opPop:
				c.pop()
			case opSteal:
				c.steal()
			case opLen:
				c.len()
			}
		}
		c.drain(rand.New(rand.NewPCG(uint64(len(data)), 0)))
	})
}
