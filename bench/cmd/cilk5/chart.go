package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// chart draws c1 per program as horizontal bars on a log scale, Cilk-5's
// published value above fj's variants, in the style of cmd/charts.
func chart(ds *dataset, rows []row) string {
	const (
		width, labelRight, left, right = 760, 250, 262, 64
		top, barH, barGap, groupGap    = 96, 15, 3, 14
		fjColor, paperColor            = "#1f77b4", "#7f7f7f"
	)
	type bar struct {
		label, color string
		value        float64
	}
	type group struct {
		program, input string
		bars           []bar
	}
	var groups []group
	maxV := 2.0
	for _, r := range rows {
		if len(groups) == 0 || groups[len(groups)-1].program != r.program {
			g := group{program: r.program, input: r.input}
			if r.paper > 0 {
				g.bars = append(g.bars, bar{"Cilk-5 (paper)", paperColor, r.paper})
				maxV = max(maxV, r.paper)
			}
			groups = append(groups, g)
		}
		g := &groups[len(groups)-1]
		g.bars = append(g.bars, bar{"fj, " + variantTitle(r.variant), fjColor, r.c1})
		if !math.IsNaN(r.c1) && !math.IsInf(r.c1, 0) {
			maxV = max(maxV, r.c1)
		}
	}
	// The axis runs over powers of two, from 1/2 (a parallel program
	// faster than its elision) to the first power of two above every bar.
	lo, hi := -1.0, math.Ceil(math.Log2(maxV)*1.02)
	plotW := float64(width - left - right)
	x := func(v float64) float64 {
		l := math.Log2(max(v, math.Exp2(lo)))
		return float64(left) + (l-lo)/(hi-lo)*plotW
	}
	height := top
	for _, g := range groups {
		height += len(g.bars)*(barH+barGap) - barGap + groupGap
	}
	axisY := height - groupGap + 8
	height = axisY + 44

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="13">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="26" font-size="17" font-weight="bold">Work overhead c1 = T1/TS of the Cilk-5 programs: fj and Cilk-5</text>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="48" fill="#444">T1: the program on one worker; TS: its serial elision. Shorter is better; 1 is no overhead.</text>`+"\n")
	fmt.Fprintf(&b, `<text x="16" y="68" fill="#444">%s</text>`+"\n", html.EscapeString(provenance(ds)))

	// Grid lines and the axis, under the bars.
	for e := lo; e <= hi; e++ {
		gx := x(math.Exp2(e))
		stroke, w := "#ddd", 1.0
		if e == 0 {
			stroke, w = "#444", 1.5
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="%.1f"/>`+"\n", gx, top-8, gx, axisY, stroke, w)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s</text>`+"\n", gx, axisY+16, axisLabel(e))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#444">c1 = T1/TS (log scale)</text>`+"\n", float64(left)+plotW/2, axisY+36)

	y := top
	for _, g := range groups {
		fmt.Fprintf(&b, `<text x="16" y="%d" font-weight="bold">%s</text>`+"\n", y+barH-3, html.EscapeString(g.program))
		if len(g.bars) > 1 && g.input != "" {
			fmt.Fprintf(&b, `<text x="16" y="%d" font-size="11" fill="#666">%s</text>`+"\n", y+2*barH+barGap-3, html.EscapeString(g.input))
		}
		for _, br := range g.bars {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#222">%s</text>`+"\n", labelRight, y+barH-3, html.EscapeString(br.label))
			if math.IsNaN(br.value) || math.IsInf(br.value, 0) {
				fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#222">not measured</text>`+"\n", left+4, y+barH-3)
			} else {
				x0, x1 := float64(left), x(br.value)
				fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0, y, max(x1-x0, 1), barH, br.color)
				// A white halo keeps the value legible across grid lines.
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#222" stroke="white" stroke-width="3" paint-order="stroke">%.2f</text>`+"\n", max(x1, x0+1)+5, y+barH-3, br.value)
			}
			y += barH + barGap
		}
		y += groupGap - barGap
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func axisLabel(e float64) string {
	if e < 0 {
		return fmt.Sprintf("1/%.0f", math.Exp2(-e))
	}
	return fmt.Sprintf("%.0f", math.Exp2(e))
}

// provenance says where fj's numbers come from, from the data's header.
func provenance(ds *dataset) string {
	h := map[string]string{}
	for _, line := range ds.header {
		if k, v, ok := strings.Cut(line, ": "); ok {
			h[k] = v
		}
	}
	s := "Cilk-5: PLDI 1998, Figure 6. fj: median of " + orDash(h["rounds"]) + " rounds, " +
		orDash(h["cores"]) + " cores (" + orDash(h["cpu"]) + "), " + orDash(h["go"])
	if d := h["date"]; d != "" {
		s += ", " + d
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
