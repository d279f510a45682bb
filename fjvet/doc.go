// Package fjvet is an analyzer (golang.org/x/tools/go/analysis) that
// reports misuse of fj which the compiler accepts and which fj's run-time
// checks catch only when the schedule shows it, or not at all: a captured
// *pool.Worker passes silently on one worker, and a blocking call outside
// a section only costs time. The command is fjvet/cmd/fjvet; run it in CI
// through go vet, which builds and type-checks the packages, tests
// included:
//
//	go install github.com/forkjoin/fj/fjvet/cmd/fjvet@<commit>
//	go vet -vettool=$(command -v fjvet) ./...
//
// or on its own (fjvet ./...; -fix applies the suggested fixes, -diff
// shows them). It needs Go 1.26 or later to build (golang.org/x/tools
// v0.52.0), whatever Go the checked module needs. It recognises fj by its
// import paths, github.com/forkjoin/fj/pool, forkjoin, taskblock and
// parallel.
//
// Every message starts with the rule's name, says why the code is wrong
// and what to write instead; where the fix is mechanical, the diagnostic
// carries it as a suggested fix. The rules look at one package at a
// time, at the code as written: what each cannot see is said with it.
//
// # Where code runs
//
// A function literal given to an fj call runs as a task on a worker: a
// loop body, a Join half, a Fork or Spawn, a task block's body and tasks,
// Invoke's, Run's and Region's function, and comparators, predicates and
// combiners too. A literal given to pool.Blocking or BlockingValue is a
// section: it runs on the task's goroutine, holding no worker. A function
// whose first parameter is a *pool.Worker is a task as well, literal or
// declared (fib(w, n), a recursive walk closure). A literal started by
// go is a goroutine of its own, and so is a stall handler's. An iter.Seq
// given to parallel.ForSeq (or MapSeq ...) runs in the task that pulls it,
// as a range loop would: the task's worker is its own, and its waits are
// the puller's, which ForSeq documents (a channel worklist): they are not
// reported. Any other literal runs where it is written (called, deferred,
// given to other code); one stored in a local variable runs where the
// variable is called.
//
// # captured-worker
//
// A *pool.Worker variable used in a function that must use its own: a
// task's literal (or a function reached from it through plain closures)
// using the worker of an enclosing task, at any depth of nesting; a
// worker used in a section or in a goroutine started with go, or handed
// to one (go f(w)); a package-level worker used in a task. A worker
// belongs to the task it was given to: a loop body or a Join's second
// half may be stolen and run on another worker's goroutine, where the
// captured worker is not held, and fj panics there, but on one worker
// nothing is stolen and the mistake passes silently.
//
//	parallel.For(w, 0, n, func(_ *pool.Worker, i int) {
//		a, b := forkjoin.JoinArgs(w, fib, i, i+1) // captured-worker
//	})
//
// The fix renames the uses to the literal's own worker, its first
// parameter, naming it (w) when it was _ or unnamed; in a task block's
// body, which has no worker parameter, to b.Worker(). A section, a
// goroutine, an iterator or a comparator has no worker of its own: no fix.
//
// Not reported, because correct: the worker given to the call that runs
// the literal on the calling goroutine, as documented (taskblock.Define's
// body, forkjoin.Invoke's and pool.Region's f, Worker.Run's f, Join's
// first half), comparing workers (w == outer), and storing one (kept = w:
// a test keeps one to show that using it later panics).
// Not seen: a worker reached through a struct field, a slice or a map, or
// returned by a function; a worker kept in a variable and used after its
// task returned, outside any task; literals stored and run elsewhere.
// Reported though correct: a captured worker in a Define body given a
// *Pool from a task of that same pool (the body then runs on the task's
// worker; b.Worker() says the same thing and is what the fix writes).
//
// # blocking
//
// A blocking operation in a task, outside a section: a channel send or
// receive, a range over a channel, a select without a default, and a call
// of the table below; also a call of a function or closure of the same
// package that does one of these when called (through any chain of such
// calls: the message names it, and where it blocks). A task that blocks
// holds its worker, and the work queued behind it waits; fj's stall watch
// notices at run time and hands the worker to another goroutine, which
// runs that work, about a millisecond later each time; a section costs
// neither (see pool.Blocking).
//
//	time.Sleep                         os.ReadFile, os.WriteFile, os.ReadDir
//	sync.WaitGroup.Wait                os.Open, os.OpenFile, os.Create
//	sync.Cond.Wait                     os.File: Read, ReadAt, ReadFrom, Write, WriteAt,
//	exec.Cmd: Run, Wait, Output,                WriteString, WriteTo, Sync, ReadDir,
//	          CombinedOutput                    Readdir, Readdirnames
//	http.Get, Head, Post, PostForm     net: Dial*, Listen*, Lookup*, and the Read*,
//	http.Client: Do, Get, Head, Post,       Write*, Accept*, Dial*, Lookup* methods of
//	             PostForm                   its types (net.Conn, net.Listener,
//	http.ListenAndServe(TLS), Serve         *net.TCPConn, *net.Dialer, *net.Resolver ...)
//	http.Server: Serve, ListenAndServe io.ReadAll, ReadFull, ReadAtLeast, Copy, CopyN,
//	sql.DB: Query(Context), QueryRow      CopyBuffer, WriteString, when an argument is
//	        (Context), Exec(Context),     an *os.File, a value of a net type, or the
//	        Ping(Context), Begin(Tx)      Body of an *http.Response or *http.Request
//	sql.Tx: Query(Context), QueryRow(Context), Exec(Context), Commit, Rollback
//
// The fix wraps the statement in pool.Blocking(func() { ... }), declaring
// the variables a := defined before the section. None is offered where
// the wrap would change the program: the statement uses the worker or
// makes an fj call (neither belongs in a section), returns or branches
// out of itself, or is not a statement of a block (the operation sits in
// an if's condition, a for's header, a return); nor for a range over a
// channel, which needs a loop that receives in a section.
//
// Not reported: a send on a channel that is a local variable made with a
// capacity (how tasks hand results out: it blocks only when the buffer is
// too small); blocking in code that is not a task (main, a goroutine of
// your own, a section); mutex Lock alone (see lock-across-join).
// Not seen: calls through interfaces and function values (an io.Reader
// that is a file, a callback), helpers of other packages (your own
// library's, and the standard library's beyond the table: bufio on a
// file, fmt.Fprintln to a connection), closures stored in fields.
//
// # lock-across-join
//
// A sync.Mutex or RWMutex locked in a task and still held when the task
// makes an fj call that waits: a join (Join, JoinArgs, JoinAll,
// JoinReduce, Future.Join, Task.Join), Invoke, a parallel loop, sort or
// reduction, a task block (Define, Block.Wait), Run, Region, or a
// helper of the package, given the worker, that makes one. While it
// waits, its worker runs other tasks, and one that locks the same mutex
// holds the worker the waiting task needs back. A short critical section,
// Lock, plain code, Unlock, is correct and not reported; a lock taken in
// pool.Blocking(mu.Lock) counts as taken. The message names the call; no
// fix (unlock before the call).
//
// The check follows the statements of one function in order: a branch
// that returns releases nothing for what follows, a deferred Unlock holds
// the lock to the end. Not seen: locks taken or released in another
// function, or in a closure; helpers of other packages given the
// worker; mutexes reached through different expressions (mu and p.mu are
// different names); a lock held across a call outside a task.
//
// # escaping-block
//
// A *taskblock.Block that leaves the function it was given to (a Define
// body, or a helper that receives the block): stored in a variable, field
// or element declared outside that function (also as part of an append or
// a closure that uses it), sent on a channel, returned, or used by a
// goroutine started with go. A block lives until its Define returns and
// serves only its body and tasks: used later, or from another goroutine,
// it panics. Using it in the body, in the block's tasks (b.Run from a task
// of the block is N4411's way), in a local copy, and passing it to a
// function are correct and not reported. No fix.
//
// Not seen: a block stored by a function it is passed to, or inside a
// local value that escapes later; a block converted to an interface.
//
// # close-inside
//
// Close of a *pool.Pool in a task: the pool that runs the task (the
// Runner of an enclosing fj call, or w.Pool()), whose Close would wait for
// this very task and so panics; or any other pool, whose Close would
// wait for that pool's work while holding this worker (call it in
// pool.Blocking, or where the pool was created). In a section of a task,
// Close of the task's own pool is reported (it panics there too), Close of
// another pool is correct. Close of pool.Default() is reported anywhere
// (Close panics on it). No fix.
//
// Not seen: a pool passed in under another name than its Runner (p and
// q the same pool), Close in a helper called from the task.
//
// # unjoined-spawn
//
// A forkjoin.Spawn whose Task is dropped (the call as a statement, or
// assigned to _) or kept in a local variable that nothing reads (only
// _ = t). A Task must be joined exactly once by its spawner; unjoined,
// its result and panic are lost. Use forkjoin.Fork for a result that may
// be left unread. No fix.
//
// Not seen: a Task joined on some paths only, or joined twice; a Task
// put in a slice, a field or passed on is assumed joined there.
//
// # Silencing a finding
//
// Code that misuses fj on purpose (a test of a run-time check, a
// benchmark of what a forgotten section costs) says so, naming the rule,
// with a comment at the end of the line or alone on the line above:
//
//	v = <-ch //fjvet:ignore blocking the benchmark measures the forgotten section
//
// and a file whose subject is the misuse says so once, anywhere in it:
//
//	//fjvet:file-ignore blocking,lock-across-join the stall watch's tests block on purpose
//
// A directive that names no rule is itself reported.
package fjvet
