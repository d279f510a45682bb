package sched

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// Worker is one of a pool's workers, as seen by the task it is running: a
// deque of tasks and the goroutine that runs them. (When a task has to wait
// for another, its goroutine parks and another one carries the worker on,
// see carrier.md; a worker is always run by one goroutine at a time.)
// Every task receives the *Worker it runs on; pass it on to fork more work
// (forkjoin.Fork, forkjoin.Join, a nested taskblock.Define or parallel
// call), so that the work lands on this worker's deque instead of blocking
// it.
//
// A *Worker belongs to the task it was handed to: it must not be used from
// another goroutine, nor after that task has returned. Its methods are not
// safe for concurrent use.
//
// Who may call what. A goroutine that does not hold w sees it as a
// remote (remote.go): the slot table, a carrier's worker and the wakers'
// scans hand out remotes, whose methods (signal, resume, resumeSection,
// popResumable under hmu, inSection, snapshot, carrierGroup, newCarrier)
// are the only ones such a goroutine may call, and, on w's deque, only
// what its Stealer offers (wsdeque.go). Of the Worker's own methods, any
// goroutine may call ID, Slot and Pool (fixed at creation) and the
// identity check (Held, Check, held, mustHold, notHeld: identity.go,
// debug.go), whose point is to be asked by anyone; every other one is the
// holder's: only the goroutine holding w (its current carrier,
// carrier.go) calls it, reaching it from a remote through asHolder, the
// one cast, which names why it is sound.
type Worker struct {
	// The deque, in the worker rather than behind a pointer: the fork
	// path reads its owner's fields on every fork and join, and a pointer
	// would add a dependent load to each. It is four lines of its own,
	// by writer (wsdeque.go).
	dq wsdeque.Deque[task]

	// Fixed at creation and read by other workers (wakers use wake):
	// kept apart from the owner's hot fields so that a searching thief
	// does not pull the owner's cache line away on every fork.
	// layout_test.go checks the offsets.
	pool *Pool
	wake chan struct{} // capacity 1; the holder parks on it when idle
	id   int           // ID: 0..Workers()-1, a spare's that of the worker it stands in for
	// index tells the pool's workers and spares apart, in the holders
	// table and in parallel.PerWorker: a worker's is its id, spare k's
	// Workers()+k (stall.md, X1). asSpare is nil but for a spare.
	index   int
	asSpare *spareState
	_       [cacheLine - 40]byte

	// Owner-only state: touched only by the carrier holding the worker
	// (see carrier.go), written on every fork or task.
	rng        uint64   // xorshift state for victim selection
	lastVictim int      // worker index of the last successful steal, or -1
	tick       uint32   // counts lookups, for the periodic injector check
	searching  bool     // holds a unit of the searching count (sleep.md, U1)
	loopNest   uint8    // the loop steps running on w (loophints.go, LoopStep)
	checks     uint16   // forks and joins since the main loop's task began, where the fork path samples (debug.go)
	cur        *carrier // the carrier holding the worker
	scope      *scope   // the Region of the task running, or nil
	counts     counters
	// inProgress counts, in its low 32 bits, the main-loop tasks started
	// on w and not finished, parked ones included, and in its high 32
	// bits the main-loop tasks started (the stall monitor's mark,
	// stall.md W1). Only w's holders write it (one at a time, the
	// hand-offs order them), once before and once after each main-loop
	// task: a write to a line the owner has anyway, instead of to a
	// pool-global counter. Close (quiescent) sums it over the workers.
	inProgress atomic.Int64
	// holder is the goroutine id of the holding carrier, 0 while none
	// holds w (identity.go, I3), read by the misuse check on the fork
	// path: on the owner's line, written only by the carrier taking over.
	holder atomic.Int64
	// Two lines since the counters grew past one (steal ops, private
	// steals): all of it is the holder's, so the second line shares
	// with nobody either.
	_ [2*cacheLine - 40 - unsafe.Sizeof(counters{}) - 16]byte

	// sleepState is the worker's sleep state (awake, asleep, claimed; see
	// sleep.go), written by the worker and by wakers claiming it, on the
	// sleep and wake paths only: on a line of its own, so that neither
	// the owner's hot fields nor the thieves' reads above share it.
	sleepState atomic.Uint32
	_          [cacheLine - 4]byte

	// Touched rarely, by other goroutines too.
	flushed flushedCounters // written by the owner, read by Stats
	spill   []*task         // owner only: overflow's batch, max(1, cap/2) long
	pull    []*task         // owner only: popInjector's and stealFrom's batch, max(1, cap/2) long
	tops    []int64         // owner only: stealPrivate's tops of the victims (D8)
	// stealExec and stealLeaves are the executed count right after w's
	// last steal and how many tasks it took: M1 takes a batch only when
	// those ran as leaves (stealFrom). Owner only.
	stealExec, stealLeaves uint64
	parked                 atomic.Int64 // tasks of w parked now (Stats gauge), written by the holder
	nResumable             atomic.Int32 // len(resumable), readable without hmu
	// barriers counts, twice per call, the heavy barriers of private
	// steals the holder runs (search.go, M2): odd while it is in one, a
	// system call made between tasks, which the stall watch must not take
	// for a task blocked in one (stall.md, L3). Written by the holder.
	barriers atomic.Uint32
	hmu      sync.Mutex // protects the carriers fields
	carriers
	labels     context.Context // profiler labels of its carriers: pool name, worker id
	regionName string          // its trace region while tracing: pool name, worker id
	// holderG is the runtime's g of the holding carrier's goroutine
	// (stall.md, L2), or nil: stored by the carrier taking over, before
	// it stores holder (both sequentially consistent), so that the
	// monitor that loads holder and then holderG finds that carrier's g
	// or a later holder's, which L3's id check tells apart.
	holderG atomic.Pointer[gHandle]
	// blocks is taskblock's per-worker store of fresh Blocks (LocalBlocks):
	// owner only.
	blocks unsafe.Pointer
	// A whole number of lines, so that the next object on the heap does
	// not share the last one (layout_test.go).
	_ [48]byte
}

// LocalBlocks returns a word of w's for taskblock, which keeps there the
// Blocks it hands out next (a Block is used once, but allocated in
// batches). Only the goroutine holding w may use it.
func (w *Worker) LocalBlocks() *unsafe.Pointer { return &w.blocks }

// ID returns the worker's index, 0 to Workers()-1. A spare returns the
// ID of the worker it stands in for (stall.md, X1).
func (w *Worker) ID() int { return w.id }

// Slot returns an index that no other worker or spare of the pool has, 0
// to Slots()-1: a worker's ID, or Workers()+k for the spare of worker k
// (stall.md, X1). Per-worker state indexed by it is never shared.
func (w *Worker) Slot() int { return w.index }

// Pool returns the pool w belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// Queued returns the number of tasks in w's deque, private ones included:
// for tests that bound how much work a computation keeps queued. Only the
// goroutine holding w may call it.
func (w *Worker) Queued() int { return w.dq.Count() }
