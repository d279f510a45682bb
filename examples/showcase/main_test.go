package main

import (
	"math"
	"testing"
	"time"
)

// The tables fit 100 columns whatever the load (examples_test.go checks
// the output): every figure in a cell is at most four characters, from
// the smallest to a slowest run millions of times its median.
func TestFiguresFitFourCharacters(t *testing.T) {
	for x := 0.001; x < 1e15; x *= 1.37 {
		if s := sig3(x); len(s) > 4 {
			t.Errorf("sig3(%g) = %q, more than four characters", x, s)
		}
	}
	for _, x := range []float64{9999.4, 9999.5, 999_499, 999_500} {
		if s := sig3(x); len(s) > 4 {
			t.Errorf("sig3(%g) = %q, more than four characters", x, s)
		}
	}
	ms := func(d ...float64) []time.Duration {
		out := make([]time.Duration, len(d))
		for i, x := range d {
			out[i] = time.Duration(x * float64(time.Millisecond))
		}
		return out
	}
	// A spread and a ratio as wide as they get: the worst run 10^6 times
	// the median, ratios from nearly 0 to thousands.
	if s := spread(ms(0.5, 0.9, 900_000)); len([]rune(s)) > len("999µs (999–999k)") {
		t.Errorf("spread = %q, wider than its bound", s)
	}
	if s := ratios(ms(1, 1, 5000), ms(5000, 1, 1), 2); len(s) > len("9999x (9999–9999)") {
		t.Errorf("ratios = %q, wider than its bound", s)
	}
	if s := sig3(math.Inf(1)); s != "+Inf" {
		t.Errorf("sig3(+Inf) = %q", s)
	}
}
