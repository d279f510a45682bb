package sched

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// The scheduler's shared types, in one file below every mechanism that
// uses them, as the Go runtime keeps its g, m and p in one file. Each
// mechanism's file holds its code and names the fields it owns here;
// this file holds no code and refers to nothing else in the package, so
// that every other file stands above it and the files' references run
// one way, down (issue 33: the mechanisms' files form layers).

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

// remote is a worker as a goroutine that does not hold it sees it: the
// same memory as the Worker, through a type whose methods are the only
// ones such a goroutine may call, as wsdeque.Stealer is a Deque seen by a
// thief. The pool's slot table (Pool.slots) and a carrier's worker
// (carrier.w) are remotes: the monitor, wakers, thieves and event setters
// reach a holder's method only through asHolder's cast, which names the
// reason it is sound (the caller holds the worker, or is about to). On
// another worker's deque, only what its Stealer offers is for them
// (wsdeque.go); the fields fixed at creation (pool, id, index, wake) any
// goroutine may read.
type remote Worker

// scope is a named part of a computation: the tasks forked, directly or
// not, inside a call of Region. It ties them to one execution-trace task
// and gives them a profiler label.
type scope struct {
	name string
	ctx  context.Context // carries the runtime/trace task
	// labels[i] is worker i's profiler labels plus fj.region=name, made
	// by worker i itself on first use (so no two goroutines write one
	// element).
	labels []context.Context
}

// holders is a pool's table of the goroutines that hold its workers: at
// most one per worker (the holding carrier, carrier.go), so at most n
// entries. An entry packs a goroutine id and a worker index,
// uint64(g)<<16 | id; 0 is an empty slot (goroutine ids start at 1).
//
// A goroutine's entry lives in one of two buckets of four slots, chosen by
// two hashes of its id (I2). Only the goroutine itself writes its entry
// (I3) and only it asks about itself (I4), so a lookup reads at most eight
// slots, whatever the number of workers, the depth of the stack or what
// other goroutines do meanwhile.
type holders struct {
	buckets []holderBucket
	bits    uint8 // len(buckets) == 1 << bits
	// overflow counts holders that found both their buckets full, or
	// whose id does not fit the packing (I5); while it is non-zero,
	// lookups that miss scan the workers. With 4 slots per worker it
	// stays zero in practice.
	overflow atomic.Int64
}

type holderBucket [bucketSlots]atomic.Uint64

// injector holds tasks that are not on any worker's deque: tasks submitted
// from goroutines that are not workers, and forks that overflowed a full
// deque. It is a few mutex-protected FIFO queues (buckets), so that many
// external submitters do not all serialise on one lock; workers drain the
// buckets round-robin. Order across buckets is not FIFO, and need not be:
// the injector promises only that every task is eventually taken.
type injector struct {
	buckets []bucket
	mask    uint32
}

type bucket struct {
	// n is the number of queued tasks, kept outside the lock so that
	// workers can skip empty buckets, and the sleep protocol can check for
	// work, without locking. It is incremented after the task is queued,
	// inside the lock; see push.
	n  atomic.Int64
	mu Lock
	q  ring
	_  [64]byte // keep neighbouring buckets' locks off one cache line
}

// ring is an unbounded FIFO queue of tasks in a growable circular buffer.
type ring struct {
	buf        []*task
	head, size int
}

// sectionGauge counts a pool's tasks inside a section's f, and caps the
// user's sections if the pool has a cap (B3): a counting semaphore whose
// fast path is one CAS, and whose slow path, past the cap, waits on a
// condition variable on the section's own goroutine, which holds no
// worker (B2).
type sectionGauge struct {
	in   atomic.Int64 // tasks in a section's f now (Stats.Blocking)
	most atomic.Int64 // the most in has been
	// limit is the cap (0: none), and taken the slots taken: user
	// sections in f.
	limit int64
	taken atomic.Int64
	// waiting counts goroutines in the slow path. release loads it after
	// its decrement, and wait increments it before its re-check of
	// taken, both sequentially consistent: a release that sees no waiter
	// comes before the waiter's re-check, which then sees the slot free.
	waiting atomic.Int32
	mu      sync.Mutex
	free    sync.Cond // signalled (under mu) when a slot is given back
}

// counters is the owner-only working copy of a worker's Counters. A worker
// counts in plain variables (an atomic add per task would cost more than a
// fork) and flushes them to a copy that Snapshot reads whenever it runs
// out of local work, before it sleeps, every 4096 tasks and when it exits
// ("publish" is for tasks only: making them visible to thieves).
type counters = Counters

// flushedCounters is what Snapshot reads: the counters but the gauge.
type flushedCounters [countParked]atomic.Uint64

// Counters are one worker's counters, indexed by the constants below.
// pool.WorkerStats documents them for users, as a struct with one field
// per counter, of the same type and in the same order (pool's layout
// test pins that), so that one is the other's memory: the counters are
// named there and only there.
type Counters [numCounters]uint64

const bucketSlots = 4

// The counters, in pool.WorkerStats' order. The last, countParked, is a
// gauge, not a counter: the tasks of the worker parked in a wait right
// now (resumable ones included); the owner's working copy does not use
// it, Snapshot reads Worker.parked.
const (
	countExecuted = iota
	countSteals
	countFailedSteals
	countInjectorPops
	countOverflows
	countSleeps
	countWakeups
	countParks
	countStealOps
	countPrivateSteals
	countBarriers
	countParked
	numCounters
)
const (
	running holderState = iota
	searching
	handingOff
	exiting
)

// Group is a join scope: the tasks forked in one task block, joined all
// at once. It is the job type's join (job.go) for a set of tasks instead
// of one:
//
//	G1  The group counts its tasks not yet finished, plus one for its
//	    opener (a block's body) until Close: the word n is
//	    2×pending + open, plus the bit canceledBit once canceled (kept in
//	    the same word so that a Block fits in 64 bytes; every count below
//	    is of n without that bit).
//	G2  A fork into the group (Add) is refused once n is 0: the opener has
//	    closed it and every task has finished, so its joiner may already
//	    have returned. Any legal forker is the opener (before Close) or a
//	    running task of the group, which is itself counted: n >= 1 for as
//	    long as either can call Add, so a legal fork is never refused and
//	    a fork after the end always is: no task runs after the group's
//	    join returned, and none is added to a group nobody waits for.
//	G3  A task's end (Done) takes 2 off n; the one that brings pending to
//	    0 wakes the waiters, as Latch.Set does (sleep.md, event setter).
//	G4  Wait (the opener's) takes back the group's own tasks from the
//	    bottom of its worker's deque and runs them inline (J1, J2: they
//	    are what it waits for), then waits for the rest (J3).
//	G5  A group opened with a home worker (OpenOn) may serve again, as a
//	    new group, once its opener's Wait has returned, if it was not
//	    canceled, every task ran on home and nobody waits: a task that
//	    runs elsewhere sets awayBit in n before its Done, and a task of
//	    home's runs on home's holder, which the opener is again only
//	    after that task's Done returned, so no goroutine but the opener's
//	    touches g any more. It is then left open (not Closed): its
//	    forkers must tell a fork meant for the old group apart
//	    themselves (taskblock: Add, check, Fork, and Undo if the count
//	    went to a later group).
//	G6  RunOpener runs the opener's body and its final Wait under one
//	    deferred capture, and the tasks that Wait takes back run inline
//	    without a Guard each: between such a task and RunOpener's frame
//	    there is only the scheduler's Wait, so a panic or Goexit of the
//	    task unwinds to RunOpener, which reports it as the running task's
//	    (inline set), cancels g, counts the task done and waits for the
//	    rest (their Guards back, skipping those not started). A Wait the
//	    body calls itself keeps the Guards: the body's own frames, which
//	    could recover a task's panic, lie between.
//	G7  A task that home's holder forks into a group with a home (AddOn)
//	    is counted in local, a plain count of home's holders, not in n:
//	    most are taken back and finish on home (local--), and a fork
//	    then costs no atomic operation. One that finishes elsewhere adds
//	    one to stolen instead. Before its opener registers as a waiter
//	    (addWaiter; the opener is the only one), it merges: n gets
//	    local, then stolen is swapped for mergedBit and n loses what it
//	    held, so that n never falls below the tasks it counts; from then
//	    on every fork and Done of g goes through n, which wakes the
//	    opener (G3). Pending is n's count plus local less stolen until
//	    then, and IsSet is the opener's.
type Group struct {
	n       atomic.Int64 // 2×pending + open, | canceledBit | awayBit (G1, G5)
	waiters atomic.Pointer[waiter]
	owner   GroupOwner
	home    *Worker // OpenOn's (G5), or nil
	// inliner is the carrier running RunOpener's final Wait, whose
	// tasks run inline without a Guard (G6), and inline is set while
	// one does. Only that carrier writes them, on g's home worker.
	inliner     *carrier
	inline      bool
	inlineLocal bool // the inline task's local (G7)
	// local and stolen are G7's counts: local is home's holders', stolen
	// (| mergedBit) is added to by other workers.
	local  int64
	stolen atomic.Int64
}

// GroupOwner is told how the tasks of a group failed (taskblock's Block,
// which collects the panics and keeps the first error).
type GroupOwner interface {
	// Failed is called, from the worker that ran the task, for a task
	// that panicked (p) or returned an error (err), before the group is
	// canceled (Go cancels it right after; an owner may cancel it
	// itself once it has recorded the failure).
	Failed(p *Panic, err error)
}

// groupTask is one function run in a group: exactly one of f and fe is
// set. They are the functions Go was given, of types func(*W) and
// func(*W) error, held as functions of *Worker: a *W is a *Worker's
// memory (As), and a function of one pointer is called the same way
// whatever the pointer's type, so no adapter is needed. (An adapter such
// as a generic callAs[W] would cost an allocation per Go: a generic
// function value made inside generic code carries its dictionary in a
// closure.)
type groupTask struct {
	task
	g     *Group
	f     func(*Worker)
	fe    func(*Worker) error
	owner *Worker // the worker whose deque it was pushed on
	local bool    // counted in g's local (G7)
}

// waiter is one registration of a waiting goroutine on an event. What it
// wakes is a waker: a parked carrier, which the event's setter makes
// resumable on its worker (carrier.go), or a goroutine outside the pool
// blocked on a channel (chanWaker). A node is immutable once published (by
// the CAS that links it), except for claimed, so the setter can walk a
// list it swapped out while waiters come and go; every wait registers a
// fresh node. Waiting is the slow path, so the allocation does not matter.
type waiter struct {
	next *waiter
	w    waker
	// claimed decides between the setter (which then wakes w) and the
	// waiter itself cancelling its wait because it saw the event set.
	// Exactly one of them wins, so a carrier is never made resumable
	// twice, nor after it stopped waiting.
	claimed atomic.Bool
}

// A waker is what a waiter node wakes once its setter has claimed it.
type waker interface{ wake() }

// Panic is one captured panic (or Goexit) of a task: Err is what its
// joiner raises, made by the package that owns the error types (pool's
// *PanicError, see SetErrors), and Seq numbers captures in the order they
// happened, process-wide, so that of several panics of one join the first
// is well defined (Combine).
type Panic struct {
	Err error
	Seq uint64
}

// The words of Worker.inProgress (W1): the tasks in progress in the low
// half, the tasks started in the high half.
const (
	runningMask = 1<<32 - 1
	startedOne  = 1 << 32
)

// The values of Worker.sleepState.
const (
	awake   = 0 // running, searching, or between S1 and S3's store
	asleep  = 1 // announced and re-checking or parked: a waker may claim it
	claimed = 2 // a waker claimed it and counted it as searching (U2)
)
