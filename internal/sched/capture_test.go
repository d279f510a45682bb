package sched

import (
	"errors"
	"slices"
	"testing"
)

// Combine raises the panic captured first and attaches the others in the
// order they were captured, whatever order it is given them in, flat (the
// panics already attached to one are taken apart) and each once.
func TestCombineOrdersBySeq(t *testing.T) {
	var got []error
	oldAttach, oldSplit := attachErrors, splitError
	defer func() { attachErrors, splitError = oldAttach, oldSplit }()
	attachErrors = func(first error, later []error) error {
		got = append([]error{first}, later...)
		return first
	}
	a, b, c, d, e := errors.New("a"), errors.New("b"), errors.New("c"), errors.New("d"), errors.New("e")
	p := func(e error, seq uint64) *Panic { return &Panic{Err: e, Seq: seq} }
	// c carries d and e, as a nested join's panic would.
	cBare := errors.New("c without its later panics")
	splitError = func(err error) ([]*Panic, error) {
		if err == c {
			return []*Panic{p(d, 4), p(e, 10)}, cBare
		}
		return nil, err
	}
	if err := Combine(p(b, 7), nil, p(c, 9), p(a, 3)); err != a {
		t.Fatalf("Combine raised %v, want a (seq 3)", err)
	}
	if want := []error{a, d, b, cBare, e}; !slices.Equal(got, want) {
		t.Fatalf("attached %v, want %v", got, want)
	}
	if err := Combine(nil, nil); err != nil {
		t.Fatalf("Combine of no panics = %v, want nil", err)
	}
	got = nil
	if err := Combine(p(c, 1)); err != c || got != nil {
		t.Fatalf("Combine of one panic = %v (attached %v), want it alone, as it is", err, got)
	}
	got = nil
	if err := Combine(p(a, 3), p(a, 3)); err != a || got != nil {
		t.Fatalf("Combine of one panic met twice = %v (attached %v), want it alone", err, got)
	}
	got = nil
	if err := Combine(p(b, 0), p(a, 0)); err != b || len(got) != 2 || got[1] != a {
		t.Fatalf("Combine of two panics numbered 0 (not fj's) = %v (attached %v), want b with a", err, got)
	}
	if ps := InOrder([]*Panic{p(b, 7), nil, p(c, 9), p(a, 3), p(b, 7)}); len(ps) != 5 ||
		ps[0].Err != a || ps[1].Err != d || ps[2].Err != b || ps[3].Err != cBare || ps[4].Err != e {
		t.Fatalf("InOrder = %v, want a d b c e", ps)
	}
}
