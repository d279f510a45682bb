package sched

import "unsafe"

// As and From convert between the scheduler's Pool and Worker and the
// public types of package pool, which consist of them alone (pool.Worker
// is a struct whose only field is a sched.Worker): the same memory seen
// through another type, at no cost, so that a *pool.Worker can be handed
// to every task without a wrapper object. pool's layout test pins that
// the public types are exactly that; no other type may be used here.
func As[P any, S Worker | Pool](s *S) *P { return (*P)(unsafe.Pointer(s)) }

// From is the inverse of As.
func From[S Worker | Pool, P any](p *P) *S { return (*S)(unsafe.Pointer(p)) }
