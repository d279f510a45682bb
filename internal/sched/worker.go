package sched

import "unsafe"

// The Worker's accessors that read one field: the type itself, and who
// may call what, are in types.go.

// LocalBlocks returns a word of w's for taskblock, which keeps there the
// Blocks it hands out next (a Block is used once, but allocated in
// batches). Only the goroutine holding w may use it.
func (w *Worker) LocalBlocks() *unsafe.Pointer { return &w.blocks }

// ID returns the worker's index, 0 to Workers()-1.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool w belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// Queued returns the number of tasks in w's deque, private ones included:
// for tests that bound how much work a computation keeps queued. Only the
// goroutine holding w may call it.
func (w *Worker) Queued() int { return w.dq.Count() }

// resumePending reports whether a parked task of w's has become
// resumable, so that the holder must hand w back to it at its next safe
// point (C4, carrier.md). It is the one check every state makes: between
// tasks, in every search pass and while waiting for news, and in the
// sleep re-check (S2), after the announcement, which is what makes it
// safe against a holder going to sleep (see resume).
func (w *Worker) resumePending() bool { return w.nResumable.Load() != 0 }
