package main

import (
	"strings"
	"testing"
)

const sample = `cores: 2
goos: linux
BenchmarkFork/fine/impl=fj         	     100	  10000000 ns/op	        31.00 ns/fork	 7634192 B/op
BenchmarkFork/fine/impl=fj-2       	     100	   5000000 ns/op	        15.00 ns/fork
BenchmarkFork/fine/impl=fj-2       	     100	   7000000 ns/op	        21.00 ns/fork
BenchmarkFork/fine/impl=fj-2       	     100	   6000000 ns/op	        19.00 ns/fork
BenchmarkBlocking/impl=fj-taskblock-2w-2 	       3	 401295490 ns/op
PASS
`

func TestParse(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if m, n, ok := res.median(key{"Fork/fine", "fj", 1}, "ns/fork"); !ok || n != 1 || m != 31 {
		t.Errorf("1 worker: median %v of %d (%v), want 31 of 1", m, n, ok)
	}
	if m, n, ok := res.median(key{"Fork/fine", "fj", 2}, "ns/fork"); !ok || n != 3 || m != 19 {
		t.Errorf("2 workers: median %v of %d (%v), want 19 of 3", m, n, ok)
	}
	if _, _, ok := res.median(key{"Blocking", "fj-taskblock-2w", 2}, "ns/op"); !ok {
		t.Error("an impl name ending in a digit and w lost its GOMAXPROCS suffix wrongly")
	}
	if got := res.procs("Fork/fine"); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("procs = %v, want [1 2]", got)
	}
	if got := res.config("cores"); got != "2" {
		t.Errorf("cores = %q, want 2", got)
	}
}

func TestChartsDrawOnlyWhatWasMeasured(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	svg := forkCost(res)
	for _, want := range []string{"31.0 ns · 1 worker", "19.0 ns · 2 workers"} {
		if !strings.Contains(svg, want) {
			t.Errorf("fork-cost.svg lacks %q", want)
		}
	}
	if n := strings.Count(svg, "fill-opacity"); n != 2 {
		t.Errorf("fork-cost.svg draws %d bars, want the 2 measured", n)
	}
	md := markdown(res)
	if want := "| fib(27), a fork at every level | — | — | — | — | — | **6.00 ms** | — | — |"; !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
	if s := speedup(res); strings.Count(s, "not measured") != len(panels) {
		t.Errorf("speedup.svg: %d panels say not measured, want all %d", strings.Count(s, "not measured"), len(panels))
	}
}
