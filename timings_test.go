package fj_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A timing the README or docs/ state is a measurement, and a reader must
// be able to take it again. The convention, checked here: every figure
// of time (a number followed by ns, µs, ms, s, seconds, minutes, ...)
// stands in a paragraph, a list or a table row that names where it comes
// from: a benchmark (`BenchmarkX`), a test (`TestX`), or the command that
// measures it (`go test ...`, `go run ...`, `bench/measure.sh`). A table
// row may leave that to the table's caption: the paragraph just above the
// table, or its header row. A figure that is a parameter of what was
// measured (eight tasks sleeping 100 ms) names the benchmark of that
// workload the same way; a figure that is no measurement at all (a
// default, a threshold) names the benchmark or test that exercises it.
var (
	timingFigure = regexp.MustCompile(`\b\d(?:[\d.,]*\d)?(?:\s|&nbsp;)?(?:ns|µs|us|ms|s|seconds?|minutes?|milliseconds?|microseconds?|nanoseconds?)\b`)
	timingSource = regexp.MustCompile(`Benchmark[A-Z0-9]\w*|\bTest[A-Z]\w*|\bgo (?:test|run)\b|measure\.sh`)
)

// timingBlocks splits a Markdown file into the blocks the convention
// speaks of: paragraphs and lists (lines up to a blank line, code blocks
// left out) and table rows, each row with its table's caption. It returns
// each block's text, the caption (empty but for rows) and its first line.
func timingBlocks(src string) (texts, captions []string, lines []int) {
	prose := mdProse(src) // code blocks blanked, line numbers kept
	var block []int
	lastPara, caption, inTable := "", "", false
	flush := func() {
		if len(block) == 0 {
			return
		}
		var b strings.Builder
		for _, i := range block {
			b.WriteString(prose[i])
			b.WriteByte('\n')
		}
		text := b.String()
		row := strings.HasPrefix(strings.TrimSpace(prose[block[0]]), "|")
		c := ""
		switch {
		case row && !inTable:
			inTable, caption = true, lastPara+text // the header row
			c = caption
		case row:
			c = caption
		default:
			inTable, lastPara = false, text
		}
		texts, captions, lines = append(texts, text), append(captions, c), append(lines, block[0]+1)
		block = nil
	}
	for i, l := range prose {
		switch t := strings.TrimSpace(l); {
		case t == "":
			flush()
			inTable = false
		case strings.HasPrefix(t, "|"):
			flush()
			block = []int{i}
			flush()
		default:
			block = append(block, i)
		}
	}
	flush()
	return texts, captions, lines
}

func TestTimingsNameTheirSource(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts, captions, lines := timingBlocks(string(src))
		for i, text := range texts {
			figures := timingFigure.FindAllString(text, -1)
			if len(figures) == 0 {
				continue
			}
			checked++
			if timingSource.MatchString(text) || timingSource.MatchString(captions[i]) {
				continue
			}
			t.Errorf("%s:%d: %s without the benchmark, test or command it comes from (`BenchmarkX`, `TestX`, `go test ...`) in its paragraph, row or table caption",
				f, lines[i], strings.Join(figures, ", "))
		}
	}
	if checked < 50 {
		t.Errorf("only %d blocks with a timing found in README.md and docs/*.md: the scanner no longer sees them", checked)
	}
}

// The scanner itself, on a small document: a paragraph, a list, a table
// with a caption and one without, and a code block that is skipped.
func TestTimingBlocks(t *testing.T) {
	doc := "Takes 5 ms.\n\n`BenchmarkX`:\n\n| a | b |\n|---|---|\n| x | 3 ms |\n\n" +
		"Text.\n| a |\n| 4 s |\n\n```\ngo test 9 ms\n```\n- one 2 µs\n- two BenchmarkY\n"
	texts, captions, _ := timingBlocks(doc)
	var bad []string
	for i, text := range texts {
		if timingFigure.MatchString(text) && !timingSource.MatchString(text) && !timingSource.MatchString(captions[i]) {
			bad = append(bad, strings.TrimSpace(text))
		}
	}
	want := []string{"Takes 5 ms.", "| 4 s |"}
	if strings.Join(bad, ";") != strings.Join(want, ";") {
		t.Errorf("flagged %q, want %q", bad, want)
	}
}
