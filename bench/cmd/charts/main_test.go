package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
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
	if want := "| fib(27), a fork at every level | — | — | — | — | — | — | **6.00 ms** | — | — |"; !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
	if s := speedup(res); strings.Count(s, "not measured") != len(panels) {
		t.Errorf("speedup.svg: %d panels say not measured, want all %d", strings.Count(s, "not measured"), len(panels))
	}
}

// full returns input in which every implementation of every workload of
// the charts and tables was measured three times at 1 and at 2 workers,
// with times that differ from one another.
func full() string {
	var b strings.Builder
	b.WriteString("cores: 2\n")
	benches := map[string][]string{}
	for _, pn := range panels {
		benches[pn.bench] = append([]string{baselines[pn.bench]}, pn.impls...)
	}
	for _, t := range []table{loops, sorts} {
		for _, row := range t.rows {
			if benches[row.bench] == nil {
				benches[row.bench] = []string{baselines[row.bench]}
			}
			for _, c := range t.cols {
				for _, impl := range c.impls {
					if !slices.Contains(benches[row.bench], impl) {
						benches[row.bench] = append(benches[row.bench], impl)
					}
				}
			}
		}
	}
	n := 0
	for bench, impls := range benches {
		for _, impl := range impls {
			for _, procs := range []int{1, 2} {
				suffix := ""
				if procs > 1 {
					suffix = fmt.Sprintf("-%d", procs)
				}
				for run := 0; run < 3; run++ {
					n++
					ns := 1e6 * float64(100+n%97) / float64(procs)
					if impl == baselines[bench] {
						ns = 3e8
					}
					fmt.Fprintf(&b, "Benchmark%s/impl=%s%s 1 %.0f ns/op %.1f ns/fork\n", bench, impl, suffix, ns, ns/1e5)
				}
			}
		}
	}
	return b.String()
}

// TestLabelsEqualTables checks that every speedup the charts print is
// the number the tables of docs/peers.md print for the same ratio.
func TestLabelsEqualTables(t *testing.T) {
	res, err := parse(strings.NewReader(full()))
	if err != nil {
		t.Fatal(err)
	}
	md, svg := markdown(res), speedup(res)
	for _, row := range sorts.rows {
		for _, procs := range []int{1, 2} {
			s, ok := res.speedup(row.bench, "slices", "fj", procs)
			if !ok {
				t.Fatalf("%s at %d: no speedup", row.bench, procs)
			}
			cell := ratioOf(s)
			if !strings.Contains(md, "| "+cell+" |") {
				t.Errorf("%s at %d workers: the table lacks %s:\n%s", row.bench, procs, cell, md)
			}
			lbl := strings.Replace(cell, "x", "×", 1) + " · " + workers(procs)
			if !strings.Contains(svg, lbl) {
				t.Errorf("%s: speedup.svg lacks %q", row.bench, lbl)
			}
		}
	}
	for _, row := range loops.rows[1:] {
		s, _ := res.speedup(row.bench, baselines[row.bench], "fj", 2)
		if cell := "| " + ratioOf(s) + " |"; !strings.Contains(md, cell) {
			t.Errorf("%s: the table lacks %s", row.bench, cell)
		}
		if lbl := strings.Replace(ratioOf(s), "x", "×", 1) + " · 2 workers"; !strings.Contains(svg, lbl) {
			t.Errorf("%s: speedup.svg lacks %q", row.bench, lbl)
		}
	}
}

var textElem = regexp.MustCompile(`<text ([^>]*)>([^<]*)</text>`)
var attr = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)

// textBoxes estimates the box of every text element of an SVG: a
// character is about 0.6 of the font size wide (Helvetica averages
// less), the box about one font size high above the baseline.
func textBoxes(t *testing.T, svg string) (boxes [][4]float64, texts []string) {
	root := 12.0
	if m := regexp.MustCompile(`<svg [^>]*font-size="([0-9.]+)"`).FindStringSubmatch(svg); m != nil {
		root, _ = strconv.ParseFloat(m[1], 64)
	}
	for _, m := range textElem.FindAllStringSubmatch(svg, -1) {
		a := map[string]string{}
		for _, kv := range attr.FindAllStringSubmatch(m[1], -1) {
			a[kv[1]] = kv[2]
		}
		x, err1 := strconv.ParseFloat(a["x"], 64)
		y, err2 := strconv.ParseFloat(a["y"], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("text without coordinates: %s", m[0])
		}
		size := root
		if v, ok := a["font-size"]; ok {
			size, _ = strconv.ParseFloat(v, 64)
		}
		w := 0.6 * size * float64(len([]rune(m[2])))
		switch a["text-anchor"] {
		case "end":
			x -= w
		case "middle":
			x -= w / 2
		}
		boxes = append(boxes, [4]float64{x, y - 0.8*size, x + w, y + 0.2*size})
		texts = append(texts, m[2])
	}
	return boxes, texts
}

// TestNoOverlappingLabels draws every chart from complete input and
// checks that no two texts overlap and that every text is inside the
// picture.
func TestNoOverlappingLabels(t *testing.T) {
	res, err := parse(strings.NewReader(full()))
	if err != nil {
		t.Fatal(err)
	}
	size := regexp.MustCompile(`<svg [^>]*width="(\d+)" height="(\d+)"`)
	for name, svg := range map[string]string{"fork-cost": forkCost(res), "speedup": speedup(res), "peers-overhead": overhead(res)} {
		m := size.FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("%s: no size", name)
		}
		width, _ := strconv.ParseFloat(m[1], 64)
		height, _ := strconv.ParseFloat(m[2], 64)
		boxes, texts := textBoxes(t, svg)
		for i, a := range boxes {
			if a[0] < 0 || a[1] < 0 || a[2] > width || a[3] > height {
				t.Errorf("%s: %q is outside the %vx%v picture: %v", name, texts[i], width, height, a)
			}
			for j := i + 1; j < len(boxes); j++ {
				b := boxes[j]
				if math.Min(a[2], b[2]) > math.Max(a[0], b[0]) && math.Min(a[3], b[3]) > math.Max(a[1], b[1]) {
					t.Errorf("%s: %q overlaps %q", name, texts[i], texts[j])
				}
			}
		}
	}
}
