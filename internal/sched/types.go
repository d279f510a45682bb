package sched

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// The types every mechanism shares: the Pool, the Worker, the task they
// schedule (with what it runs), the carrier goroutines that hold a
// worker and the holder's states, as the Go runtime keeps its g, m and p
// in one file. Each mechanism's own state is a type in that mechanism's
// file, beside its code and its steps (issue 48): the injector and its
// ring (injector.go), the holders table (identity.go), the section gauge
// (blocking.go), the stall watch (stall.go), the counters (stats.go), a
// Group (group.go). Pool and Worker hold those by value, for their
// layout, so this file names their types; it holds no code, and every
// other file stands above it (sched_floors_test.go, at the module's
// root, holds the files' floors).

// Pool is the scheduler behind a pool.Pool: a fixed set of workers, each
// with a deque, a shared injector, and the sleep protocol (sleep.md).
type Pool struct {
	// ctl is the sleep protocol's control word (see sleep.go): counts of
	// searching, sleeping and waiting workers. It is loaded by every
	// fork, so it sits alone on its cache line with wakeHint, which is
	// written only where ctl is too (on the wake path).
	ctl      atomic.Uint64
	wakeHint atomic.Uint32 // where the next waker starts its scan
	_        [cacheLine - 12]byte

	// news is bumped by publishers while searchers wait for it (sleep.md,
	// N1 and P3), and loaded in a loop by those: on a line of its own.
	news atomic.Uint64
	_    [cacheLine - 8]byte

	// Read-mostly: set at creation, or once at Close.
	workers []*remote
	inj     injector
	name    string
	closed  atomic.Bool
	// stallState is the stall monitor's state (stall.md, W2, W3), loaded
	// by publishers that see every worker busy.
	stallState atomic.Uint32
	_          [cacheLine - 3*wordSize - unsafe.Sizeof(injector{}) - 2*wordSize - 8]byte // workers, inj, name, closed and stallState

	// Written once per external submission.
	inflight  atomic.Int64  // external submissions between their closed check and their push
	submitted atomic.Uint64 // tasks submitted from outside (Stats)
	_         [cacheLine - 16]byte

	closeOnce  sync.Once
	goroutines sync.WaitGroup // every carrier goroutine of every worker

	// holders answers which worker, if any, the calling goroutine holds
	// (identity.go).
	holders holders

	// sections counts (and may cap) the tasks in blocking sections
	// (blocking.go, B3): its counts are written by every section, so it
	// keeps off the line of holders.overflow, which lookups from outside
	// the pool load.
	_        [cacheLine]byte
	sections sectionGauge

	// stall is the stall monitor (stall.go).
	stall stallWatch
}

const cacheLine = 128

// wordSize is the size of a pointer or an int: 8 on 64-bit platforms, 4
// on 386 and arm. The padding of Pool and Worker counts word-sized fields
// in words, so that each group of fields starts on its line on both
// (layout_test.go).
const wordSize = unsafe.Sizeof(uintptr(0))

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
// are the only ones such a goroutine may call, and whose fields are the
// only ones it may touch: a remote is the Worker's memory with the
// holder's own state left blank, and its deque is the Stealer
// (wsdeque.go). Of the Worker's own methods, any
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
	id   int           // ID: 0..Workers()-1
	_    [cacheLine - 3*wordSize]byte

	// Owner-only state: touched only by the carrier holding the worker
	// (see carrier.go), written on every fork or task.
	rng        uint64   // xorshift state for victim selection
	lastVictim int      // worker index of the last successful steal, or -1
	tick       uint16   // counts lookups, for the periodic injector check (wraps)
	searching  bool     // holds a unit of the searching count (sleep.md, U1)
	handedOver bool     // w was just handed over a blocked holder's head (stall.md, Y4)
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
	// rng, lastVictim, tick to checks, cur and scope take 16 bytes and
	// three words, rounded up to 8: inProgress is 8-byte aligned, which
	// a 32-bit platform pads for.
	_ [2*cacheLine - (16+3*wordSize+7)&^7 - unsafe.Sizeof(counters{}) - 16]byte

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
	tops    []int64         // owner only: the victims' tops S2a read before its barrier, for M2 (D8), then S2a's marks
	// stealExec and stealLeaves are the executed count right after w's
	// last steal and how many tasks it took: M1 takes a batch only when
	// those ran as leaves (stealFrom). Owner only.
	stealExec, stealLeaves uint64
	parked                 atomic.Int64 // tasks of w parked now (Stats gauge), written by the holder
	nResumable             atomic.Int32 // len(resumable), readable without hmu
	// fjWaits counts, twice per wait, the waits of fj's own code that
	// the holder makes (a Lock that must wait): odd while it is in one,
	// which the stall watch must not take for a task's (stall.md, V3).
	// Written by the holder.
	fjWaits atomic.Uint32
	// nDisplaced counts the tasks of w handed over and not back yet
	// (stall.md, Y1, Y4): written under hmu, read by the monitor.
	nDisplaced atomic.Int32
	hmu        Lock // protects the carriers fields
	carriers
	labels     context.Context // profiler labels of its carriers: pool name, worker id
	regionName string          // its trace region while tracing: pool name, worker id
	// holderG is the runtime's g of the holding carrier's goroutine
	// (stall.md, V2), or nil: stored by the carrier taking over, before
	// it stores holder (both sequentially consistent), so that the
	// monitor that loads holder and then holderG finds that carrier's g
	// or a later holder's, which V4's id check tells apart.
	holderG atomic.Pointer[gHandle]
	// blocks is taskblock's per-worker store of fresh Blocks (LocalBlocks):
	// owner only.
	blocks unsafe.Pointer
	// raceSync is where race builds order a holder's writes before a
	// hand-over's (stall.md, Y6: race_on.go).
	raceSync uint8 //lint:ignore U1000 used in race builds
	// A whole number of lines, so that the next object on the heap does
	// not share the last one: 24 bytes on 64-bit platforms, 8 on 32-bit
	// ones, where the fields above take 112 bytes fewer (layout_test.go
	// checks it, at compile time for every platform it is built for).
	_ [4*wordSize - 8]byte
}

// task is the unit a pool schedules: what sits in a worker's deque or in
// the injector. Every job type embeds a task (usually through a job) and
// points it at itself with bind, so that a fork costs one allocation, or
// none when the job is recycled (J4).
//
// A task must not be copied after bind. It may be scheduled again only
// after it has finished running and its owner got it back (J4).
type task struct {
	r runnable
	// scope is the Region the task was forked in, or nil. A fork sets it
	// from the forking worker; it is read by whoever runs the task, after
	// the deque or injector has published it.
	scope *scope
	// forker is the worker that forked the task, set by its first fork
	// and never changed (a task is only ever reforked from its forker's
	// own deque slots, J4). A deque slot may hold another worker's task
	// (a batch moved from another deque by a steal or from the injector):
	// reusable returns only the tasks whose forker is the caller, and
	// reads recycled, which only the forker writes, only then.
	forker *Worker
	// spilled marks a task that went to the injector because its deque
	// was full (directly, or moved there in a batch by overflow). It is
	// written before the injector push and read by whoever pops the task,
	// which the injector's lock orders, and by its forker's joins, which
	// may run on another carrier, or be another worker's when a batch
	// steal had moved the task into the deque that overflowed: atomic,
	// for those (a plain load and store on amd64). recycle never frees a
	// spilled task, so the flag never needs clearing.
	spilled atomic.Bool
	// claimed decides, for a spilled task, between its owner taking it
	// back (J1) and whoever pops it from the injector: exactly one runs it.
	claimed atomic.Bool
	// recycled marks a finished task that its owner has recycled (J4). Only
	// the worker that forked the task reads or writes it.
	recycled bool
	// The fields are in this order so that a task is 48 bytes and a job
	// 64 (TestTaskSizes).
}

// runnable is what a task runs. Run is called exactly once, on the worker
// that took the task from a queue, and must not let a panic escape: a
// panic that escapes Run kills the process, because a worker goroutine has
// nobody to return it to. Job types run their body through complete, which
// captures it.
type runnable interface {
	Run(w *Worker)
}

// The holder's state machine. A worker is run by one carrier goroutine at
// a time, its holder (carrier.go); this is the loop that holder runs, and
// every state a worker can be in is one of these, or one of the idle
// sub-states that search and sleep go through (sleep.md: searching,
// waiting, sleepy, asleep), which are counted in pool.ctl:
//
//	running     between tasks or running one. Its own deque first (the
//	            injector every injectorEvery lookups); a task found is run
//	            and the holder comes back here. With its deque empty it
//	            goes to searching.
//	searching   search (search.go) and sleep (sleep.go): passes over the
//	            other queues, waiting for news, sleepy, asleep. It comes
//	            back with a task (running), because a parked task of the
//	            worker's became resumable (handingOff), or because the pool
//	            shut down with nothing left (exiting).
//	handingOff  a safe point, no task on this goroutine's stack: the holder
//	            gives the worker to a resumable carrier and becomes an idle
//	            carrier (or exits, if there are enough); if it is handed the
//	            worker again later, it resumes in running.
//	exiting     flush the counters, dismiss the idle carriers, end the goroutine.
//
// A task that waits (WaitFor) leaves this loop from inside running: its
// carrier parks with the task on its stack and hands the worker to another
// carrier, which enters hold afresh (carrier.md).
type holderState uint8

const (
	running holderState = iota
	searching
	handingOff
	exiting
)

// A carrier is a goroutine that runs a worker's tasks. Exactly one carrier
// holds a worker at a time: it alone touches the worker's deque and
// owner-only fields, and it runs the main loop (next, execute) on the
// worker's behalf. A task that has to wait for another one parks its
// carrier goroutine, with the task's frames on it, and hands the worker to
// another carrier, which carries on with the worker's work; when the
// awaited event is set, the parked carrier becomes resumable and gets the
// worker back at the holder's next safe point. carrier.md explains why
// this, rather than running other tasks on the waiting goroutine's stack,
// is what makes joins deadlock-free.
type carrier struct {
	w    *remote // its goroutine, and only it, may see it as its holder (asHolder)
	goid int64   // the id of the carrier's goroutine, set when it starts
	// g is the runtime's g of that goroutine (getg), set with goid, or
	// nil where V1 found no layout (stall.md).
	g *gHandle
	// slot is the holders table entry of c's goroutine while it holds w,
	// or nil; overflowed marks an entry counted in holders.overflow
	// instead (identity.go). Only c's goroutine touches them.
	slot       *atomic.Uint64
	overflowed bool
	// turn receives a token when the carrier is handed the worker (or,
	// for an idle carrier with quit set, told to exit).
	turn chan struct{}
	quit bool // under w.hmu: exit instead of taking the worker
	// section is c's index in w.sections while c's goroutine is in a
	// blocking section's f, having given w up (blocking.go, B2-B5), or
	// -1; under w.hmu.
	section int
	// goexiting is set once a task on this goroutine has called
	// runtime.Goexit: the unwinding cannot be stopped, and later captures
	// on the way out report the tasks it cut short (goexitReport, in
	// capture.go). The goroutine exits afterwards, so the flag is never
	// cleared.
	goexiting bool
	// entered counts the blocking sections entered on c's goroutine
	// (blocking.go, B2; Worker.Sections). Only c's goroutine touches it.
	entered uint32
	// displaced is set, under w.hmu, while the monitor has handed w over
	// c's head (stall.md, Y4) and c's goroutine has not yet asked for it
	// back (Y5); scope and loopNest keep meanwhile the owner state of
	// the task c's goroutine runs, which Y5 restores.
	displaced bool
	scope     *scope
	loopNest  uint8
}

// carriers is the state a worker shares with goroutines that are not its
// holder: the event setters that make carriers resumable, and the holder's
// hand-offs. It is touched only on the slow path, under Worker.hmu.
type carriers struct {
	resumable []*carrier // parked, their event set, waiting for the worker
	idle      []*carrier // idle, parked, available for a hand-off
	// sections lists the carriers in a blocking section's f, which gave
	// w up (identity.md, I6): by whom the goroutine-identity checks tell
	// a section from a goroutine outside the pool.
	sections []*carrier
	// displaced lists the carriers whose blocked task the monitor handed
	// w over (stall.md, Y4), until each asks for w back (Y5).
	displaced []*carrier
}
