package fj_test

import (
	"go/scanner"
	"go/token"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// citedName matches a name that ends in .go or .md: a bare file name
// (job.go), a path (internal/sched/sleep.md, or one that starts with ../).
// Globs (*.go, *_test.go) and placeholders (%s.go) are told apart by the
// character before the match (see citations).
var citedName = regexp.MustCompile(`[A-Za-z0-9_./\-]*[A-Za-z0-9_\-]\.(?:go|md)`)

// domainSegment is the first segment of an import path or a URL without
// its scheme (github.com/..., golang.org/x/...): such names are not files
// of this repository.
var domainSegment = regexp.MustCompile(`^[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[a-z]{2,}$`)

type citation struct {
	line int
	name string
}

// citations returns the .go and .md file names that text names, with
// their lines, counted from firstLine.
func citations(text string, firstLine int) []citation {
	var out []citation
	for _, m := range citedName.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		if start > 0 && strings.ContainsRune("*%{}$<>", rune(text[start-1])) {
			continue // a glob or a placeholder, not a file
		}
		if end < len(text) && isNameByte(text[end]) {
			continue // a longer word: go.mod would not match, but x.gopher would
		}
		name := text[start:end]
		// The whitespace-delimited word around the name: a URL or an
		// import path names no file of this repository.
		ws, we := start, end
		for ws > 0 && !isSpace(text[ws-1]) {
			ws--
		}
		for we < len(text) && !isSpace(text[we]) {
			we++
		}
		if strings.Contains(text[ws:we], "://") {
			continue
		}
		name = strings.TrimPrefix(name, "./")
		if i := strings.IndexByte(name, '/'); i > 0 && domainSegment.MatchString(name[:i]) {
			continue
		}
		if strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "../") {
			continue // a suffix, as in "_test.go files", not a file
		}
		out = append(out, citation{firstLine + strings.Count(text[:start], "\n"), name})
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// goComments returns the comments of a Go file with their first lines.
// The scanner tolerates files that do not compile.
func goComments(name string, src []byte) (texts []string, lines []int) {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return texts, lines
		}
		if tok == token.COMMENT {
			texts = append(texts, lit)
			lines = append(lines, fset.Position(pos).Line)
		}
	}
}

// notCited lists the files whose names of files are history, not
// citations: CHANGELOG.md records files that were renamed or removed.
var notCited = []string{"CHANGELOG.md"}

// TestCitedFilesExist checks that every .go or .md file named in a Go
// comment or in a Markdown file of the repository exists: a design note
// whose step a comment cites, the file a comment says holds something.
// A bare name (job.go) resolves against the citing file's directory
// first, then anywhere in the repository; a path (internal/sched/sleep.md,
// or one that starts with ../) against the citing file's directory, the repository
// root, or as the tail of any file's path (sched/job.go).
func TestCitedFilesExist(t *testing.T) {
	files := repoFiles(t)
	exists := make(map[string]bool, len(files))
	base := make(map[string]bool, len(files))
	for _, f := range files {
		exists[f] = true
		base[path.Base(f)] = true
	}
	resolves := func(dir, name string) bool {
		if exists[path.Join(dir, name)] || exists[path.Clean(name)] {
			return true
		}
		if !strings.Contains(name, "/") {
			return base[name]
		}
		for _, f := range files {
			if strings.HasSuffix(f, "/"+path.Clean(name)) {
				return true
			}
		}
		return false
	}

	checked := 0
	var stale []string
	for _, f := range files {
		if slices.Contains(notCited, f) {
			continue
		}
		var texts []string
		var lines []int
		switch path.Ext(f) {
		case ".go":
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts, lines = goComments(f, src)
		case ".md":
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts, lines = []string{string(src)}, []int{1}
		default:
			continue
		}
		for i, text := range texts {
			for _, c := range citations(text, lines[i]) {
				checked++
				if !resolves(path.Dir(f), c.name) {
					stale = append(stale, f+":"+strconv.Itoa(c.line)+": "+c.name)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("found only %d citations: the scan is broken", checked)
	}
	if len(stale) > 0 {
		t.Errorf("%d citations name files that do not exist (rename them to the file that now holds what they cite):\n\t%s",
			len(stale), strings.Join(stale, "\n\t"))
	}
}

// TestCitationsScan checks the scanner of names on the shapes it must
// take and the ones it must leave.
func TestCitationsScan(t *testing.T) {
	text := "see job.go and internal/sched/sleep.md (step 3);\n" +
		"../docs/peers.md, ./examples/showcase/main.go.\n" +
		"not: *.go, *_test.go, _test.go, %s.go, go.mod, golang.org/x/exp/foo.go,\n" +
		"https://github.com/a/b/blob/main/README.md, files ending in .go, x.gopher"
	var got []string
	for _, c := range citations(text, 10) {
		got = append(got, strconv.Itoa(c.line)+":"+c.name)
	}
	want := []string{"10:job.go", "10:internal/sched/sleep.md", "11:../docs/peers.md", "11:examples/showcase/main.go"}
	if !slices.Equal(got, want) {
		t.Errorf("citations =\n\t%q\nwant\n\t%q", got, want)
	}
}
