package main

import (
	"math"
	"strings"
	"testing"

	"github.com/forkjoin/fj/bench/cilk5"
)

// The runs written to the data file read back as they were, and the table
// and chart are computed from them as documented.
func TestWriteParseSummarize(t *testing.T) {
	ds := &dataset{
		header: []string{"cpu: Test CPU", "cores: 2", "rounds: 3", "go: go1.x"},
		inputs: map[string]string{"fib": "n=35", "heat": "1024×1024, 100 steps"},
	}
	add := func(program, impl string, forks int64, ns ...float64) {
		s := ds.get(program, impl)
		s.ns = ns
		s.forks = forks
		for range ns {
			s.allocs = append(s.allocs, 2*float64(forks))
		}
	}
	add("fib", "serial", 0, 50e6, 40e6, 60e6)
	add("fib", "args-1w", 100, 200e6, 100e6, 300e6)
	add("fib", "args-2w", 0, 100e6, 80e6, 90e6)
	add("heat", "serial", 0, 10e6, 11e6, 12e6, 13e6)
	add("heat", "fj-1w", 0, 11e6, 12e6, 13e6, 14e6)
	add("heat", "fj-2w", 0, 6e6, 6e6, 6e6, 6e6)

	var b strings.Builder
	if err := ds.write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("parse of what write wrote: %v\n%s", err, b.String())
	}
	if len(got.series) != len(ds.series) {
		t.Fatalf("read %d series, wrote %d", len(got.series), len(ds.series))
	}
	for i, s := range ds.series {
		g := got.series[i]
		if g.program != s.program || g.impl != s.impl || g.forks != s.forks ||
			!equal(g.ns, s.ns) || !equal(g.allocs, s.allocs) {
			t.Errorf("series %d read back as %+v, written as %+v", i, *g, *s)
		}
	}
	if got.inputs["heat"] != ds.inputs["heat"] {
		t.Errorf("heat's input read back as %q", got.inputs["heat"])
	}

	rows := summarize(got)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want one per variant: 2", len(rows))
	}
	fib := rows[0]
	if fib.program != "fib" || fib.variant != "args" || fib.ts.med != 50e6 || fib.t1.med != 200e6 ||
		fib.t1.lo != 100e6 || fib.t1.hi != 300e6 || fib.c1 != 4 || fib.speedup != 0.5 ||
		fib.allocsPerFork != 2 || fib.paper != 3.63 {
		t.Errorf("fib row = %+v", fib)
	}
	heat := rows[1]
	if heat.ts.med != 11.5e6 || !math.IsNaN(heat.allocsPerFork) {
		t.Errorf("heat row = %+v: want the median of an even count averaged, no allocs/fork", heat)
	}

	svg := chart(got, rows)
	for _, want := range []string{"<svg", "fj, JoinArgs", "Cilk-5 (paper)", ">4.00<", ">3.63<", "Test CPU", "</svg>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{
		"",
		"cpu: x\n",
		"BenchmarkCilk5/fib 1 10 ns/op\n",
		"BenchmarkCilk5/fib/impl=serial 1 ten ns/op\n",
		"what is this\n",
	} {
		if _, err := parse(strings.NewReader(in)); err == nil {
			t.Errorf("parse(%q) succeeded", in)
		}
	}
}

func TestSelectPrograms(t *testing.T) {
	all := cilk5.Suite(tinySizes)
	sel, err := selectPrograms(all, "heat,fib")
	if err != nil || len(sel) != 2 || sel[0].Name != "heat" || sel[1].Name != "fib" {
		t.Errorf("selectPrograms(heat,fib) = %v, %v", sel, err)
	}
	if _, err := selectPrograms(all, "fib,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("selectPrograms with an unknown name: %v", err)
	}
}
