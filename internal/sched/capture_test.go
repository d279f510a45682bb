package sched

import (
	"errors"
	"testing"
)

// First raises the panic captured first and attaches the others in the
// order they were captured, whatever order it is given them in.
func TestFirstOrdersBySeq(t *testing.T) {
	var got []error
	old := attachErrors
	attachErrors = func(first error, later []error) error {
		got = append([]error{first}, later...)
		return first
	}
	defer func() { attachErrors = old }()
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	p := func(e error, seq uint64) *Panic { return &Panic{Err: e, Seq: seq} }
	if err := first(p(b, 7), nil, p(c, 9), p(a, 3)); err != a {
		t.Fatalf("First raised %v, want a (seq 3)", err)
	}
	if len(got) != 3 || got[0] != a || got[1] != b || got[2] != c {
		t.Fatalf("attached %v, want [a b c]", got)
	}
	if err := first(nil, nil); err != nil {
		t.Fatalf("First of no panics = %v, want nil", err)
	}
	got = nil
	if err := first(p(c, 1)); err != c || got != nil {
		t.Fatalf("First of one panic = %v (attached %v), want it alone", err, got)
	}
}
