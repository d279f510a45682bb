package fj_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
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
					stale = append(stale, f+":"+strconv.Itoa(c.line)+": "+strconv.Quote(c.name)+": no such file")
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

// Step labels. The design notes state protocols as labelled steps, and
// comments cite them: "(sleep.md, S2a)", "sleep.md's S2a", "step P2 of
// sleep.md", or a bare "S2a".
//
// A label is a capital letter, one or two digits and an optional
// lower-case letter (S2, S2a, D5a). A note is a file that defines labels:
//
//   - a Markdown file, where a label is defined by a line whose text,
//     after an optional "- " list marker, starts with the label in bold
//     followed by a full stop: "- **S2a.** Re-check ..." or
//     "**I1. Verify once ...**";
//   - a Go file, where a label is defined by a comment line that starts,
//     at the first column, with "//", a tab, the label and two spaces:
//     a row of the code block of a doc comment ("//\tE1  Exposure ...");
//     the lines below it that start with "//\t    " continue it.
//
// A label is defined at most once in a note, and by at most one note of
// a directory, so that a bare citation names one step.
//
// A citation is a label (or a range of labels of one letter, "C1-C4",
// which cites every label of that letter the note defines with a number
// in between) in a Go comment or in the prose of a Markdown file, whose
// letter is the letter of some defined label (so T1 in a table of
// timings is not one). Its note is, in this order:
//
//  1. the note the text names next to it: a file name followed by the
//     label, with nothing but spaces, commas, colons, dashes, brackets,
//     backquotes, "'s", "step(s)", "and", "or" and other labels between
//     ("sleep.md, S2a", "job.go E1-E2, E4", "sleep.md's S2a"), or a file
//     name after it ("step P2 of sleep.md", "E1 in job.go"); a file named
//     so that defines no labels (search.go, M2: where the step is
//     implemented) names no note;
//  2. the citing file itself, if it defines the label;
//  3. the note of the citing file's directory that defines it;
//  4. the only note of the repository that defines it.
//
// The citation must be defined in its note, and every label must be
// cited at least once from code: a production Go file, outside the
// label's own definition.

// labelText matches a label, or a range of labels.
var labelText = regexp.MustCompile(`\b([A-Z])([0-9]{1,2})([a-z]?)\b(?:\s?[-–]\s?([A-Z])([0-9]{1,2})([a-z]?)\b)?`)

// mdLabelDef and goLabelDef match a line that defines a label.
var (
	mdLabelDef = regexp.MustCompile(`^\s*(?:- )?\*\*([A-Z][0-9]{1,2}[a-z]?)\.`)
	goLabelDef = regexp.MustCompile(`^//\t([A-Z][0-9]{1,2}[a-z]?)  `)
	goLabelCnt = regexp.MustCompile(`^//\t    `)
	// A label at the start of a line in another form: a definition
	// written unlike the others, which the test asks to normalise.
	mdLabelLoose = regexp.MustCompile(`^\s*(?:- )?([A-Z][0-9]{1,2}[a-z]?)\. `)
	goLabelLoose = regexp.MustCompile(`^// ([A-Z][0-9]{1,2}[a-z]?)\. `)
)

// labelGapBefore and labelGapAfter match what may stand between a file
// name and the labels it names, once the labels are taken out.
var (
	labelGapBefore = regexp.MustCompile("^(?:'s|[\\s,:()`*–-]|steps?\\b|and\\b|or\\b)*$")
	labelGapAfter  = regexp.MustCompile("^[\\s,`–-]*(?:(?:and|or)[\\s`]+)?(?:of|in)[\\s`]+$")
)

type labelDef struct {
	note string
	line int
}

// noteLabels is the labels a repository's notes define.
type noteLabels struct {
	defs    map[string]map[string]labelDef // note -> label -> definition
	defLine map[string]map[int]bool        // Go note -> lines of definitions
	letters map[byte]bool
	errs    []string
}

func labelDefs(t *testing.T, files []string) *noteLabels {
	nl := &noteLabels{defs: map[string]map[string]labelDef{}, defLine: map[string]map[int]bool{}, letters: map[byte]bool{}}
	define := func(note string, line int, label string) {
		if nl.defs[note] == nil {
			nl.defs[note] = map[string]labelDef{}
		}
		if d, ok := nl.defs[note][label]; ok {
			nl.errs = append(nl.errs, fmt.Sprintf("%s:%d: %s is defined twice (first at line %d)", note, line, label, d.line))
			return
		}
		nl.defs[note][label] = labelDef{note, line}
		nl.letters[label[0]] = true
	}
	for _, f := range files {
		switch path.Ext(f) {
		case ".md":
			if slices.Contains(notCited, f) {
				continue
			}
			for i, l := range mdProse(readFile(t, f)) {
				if m := mdLabelDef.FindStringSubmatch(l); m != nil {
					define(f, i+1, m[1])
				} else if m := mdLabelLoose.FindStringSubmatch(l); m != nil {
					define(f, i+1, m[1])
					nl.errs = append(nl.errs, fmt.Sprintf("%s:%d: %s is defined as %q: write it as \"- **%s.**\", as the other notes do", f, i+1, m[1], strings.TrimSpace(m[0]), m[1]))
				}
			}
		case ".go":
			in := false
			for i, l := range strings.Split(readFile(t, f), "\n") {
				if m := goLabelDef.FindStringSubmatch(l); m != nil {
					define(f, i+1, m[1])
					in = true
				} else if m := goLabelLoose.FindStringSubmatch(l); m != nil {
					define(f, i+1, m[1])
					nl.errs = append(nl.errs, fmt.Sprintf("%s:%d: %s is defined as %q: write it as a row of a code block, \"//\\t%s  \", as the other Go notes do", f, i+1, m[1], m[0], m[1]))
				} else if l == "//" && in {
					continue // a blank line in a definition
				} else if !in || !goLabelCnt.MatchString(l) {
					in = false
					continue
				}
				if nl.defLine[f] == nil {
					nl.defLine[f] = map[int]bool{}
				}
				nl.defLine[f][i+1] = true
			}
		}
	}
	// One label, one step: every note has a prefix of its own, so that
	// a label names its note wherever it is cited (issue 48: H1 meant
	// different steps in wsdeque.md and stall.md, C1 in carrier.md and
	// SortByKey's scratch).
	byLetter := map[byte]string{}
	for _, note := range slices.Sorted(maps.Keys(nl.defs)) {
		for _, label := range slices.Sorted(maps.Keys(nl.defs[note])) {
			if other, ok := byLetter[label[0]]; ok && other != note {
				nl.errs = append(nl.errs, fmt.Sprintf("%s:%d: %s has the prefix %c, which %s uses: give each note a letter of its own",
					note, nl.defs[note][label].line, label, label[0], other))
				break
			}
			byLetter[label[0]] = note
		}
	}
	// Two notes of one directory must not define the same label.
	byDir := map[string]string{}
	for _, note := range slices.Sorted(maps.Keys(nl.defs)) {
		for _, label := range slices.Sorted(maps.Keys(nl.defs[note])) {
			k := path.Dir(note) + " " + label
			if other, ok := byDir[k]; ok {
				nl.errs = append(nl.errs, fmt.Sprintf("%s:%d: %s is also defined in %s: a bare citation of it would be ambiguous",
					note, nl.defs[note][label].line, label, other))
			}
			byDir[k] = note
		}
	}
	return nl
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// labelCitation is one label or range a text cites.
type labelCitation struct {
	line   int
	text   string // as written, with the file it names, if any
	named  string // the file named next to it, as written, or ""
	letter byte
	lo, hi int    // the range of numbers; lo == hi for one label
	first  string // the label, or the range's first label
	last   string // the range's last label, or ""
}

// labelCitations returns the labels and ranges that text cites, with
// their lines counted from firstLine. letters are the letters of defined
// labels; defLines are lines (counted as firstLine is) to skip.
func labelCitations(text string, firstLine int, letters map[byte]bool, skip map[int]bool) []labelCitation {
	files := citations(text, firstLine)
	fileIdx := citedName.FindAllStringIndex(text, -1)
	// Keep only the names that citations accepted, in order.
	var names [][2]int
	for _, m := range fileIdx {
		for _, c := range files {
			if strings.TrimPrefix(text[m[0]:m[1]], "./") == c.name && c.line == firstLine+strings.Count(text[:m[0]], "\n") {
				names = append(names, [2]int{m[0], m[1]})
				break
			}
		}
	}
	var out []labelCitation
	for _, m := range labelText.FindAllStringSubmatchIndex(text, -1) {
		line := firstLine + strings.Count(text[:m[0]], "\n")
		if skip[line] || !letters[text[m[2]]] {
			continue
		}
		c := labelCitation{line: line, letter: text[m[2]], first: text[m[2]:m[7]]}
		c.lo, _ = strconv.Atoi(text[m[4]:m[5]])
		c.hi = c.lo
		if m[8] >= 0 {
			if text[m[8]] != text[m[2]] {
				// Two labels of different letters joined by a dash are
				// two citations: cite the first, the second comes next
				// round only if it stands alone, so add it here.
				out = append(out, c)
				c = labelCitation{line: line, letter: text[m[8]], first: text[m[8]:m[13]]}
				c.lo, _ = strconv.Atoi(text[m[10]:m[11]])
				c.hi = c.lo
				if !letters[c.letter] {
					continue
				}
			} else {
				c.last = text[m[8]:m[13]]
				c.hi, _ = strconv.Atoi(text[m[10]:m[11]])
			}
		}
		c.text = text[m[0]:m[1]]
		// The file named before it (the nearest), or after it.
		for i := len(names) - 1; i >= 0; i-- {
			n := names[i]
			if n[1] > m[0] {
				continue
			}
			gap := labelText.ReplaceAllString(text[n[1]:m[0]], "")
			if labelGapBefore.MatchString(gap) && !strings.Contains(text[n[1]:m[0]], "\n\n") {
				c.named = strings.TrimPrefix(text[n[0]:n[1]], "./")
				c.text = text[n[0]:m[1]]
			}
			break
		}
		if c.named == "" {
			for _, n := range names {
				if n[0] < m[1] {
					continue
				}
				gap := labelText.ReplaceAllString(text[m[1]:n[0]], "")
				if labelGapAfter.MatchString(gap) {
					c.named = strings.TrimPrefix(text[n[0]:n[1]], "./")
					c.text = text[m[0]:n[1]]
				}
				break
			}
		}
		c.text = strings.Join(strings.Fields(c.text), " ")
		out = append(out, c)
	}
	return out
}

// TestCitedLabels checks the step labels that comments and notes cite
// against the labels the notes define (the rules are above labelText), and
// that every defined label is cited from code.
func TestCitedLabels(t *testing.T) {
	files := repoFiles(t)
	nl := labelDefs(t, files)
	if len(nl.defs) < 5 {
		t.Fatalf("found only %d notes that define labels: the scan is broken", len(nl.defs))
	}
	problems := slices.Clone(nl.errs)
	noteFor := func(name, dir, label string) string {
		var cands []string
		for note := range nl.defs {
			if note == path.Join(dir, name) {
				return note
			}
			if note == path.Clean(name) || strings.HasSuffix(note, "/"+path.Clean(name)) || !strings.Contains(name, "/") && path.Base(note) == name {
				cands = append(cands, note)
			}
		}
		slices.Sort(cands)
		for _, c := range cands {
			if _, ok := nl.defs[c][label]; ok {
				return c
			}
		}
		if len(cands) > 0 {
			return cands[0]
		}
		return ""
	}
	cited := map[string]bool{} // note + " " + label, cited from code
	checked := 0
	for _, f := range files {
		if slices.Contains(notCited, f) || f == "citations_test.go" { // its examples cite nothing
			continue
		}
		var texts []string
		var lines []int
		switch path.Ext(f) {
		case ".go":
			texts, lines = goComments(f, []byte(readFile(t, f)))
		case ".md":
			texts, lines = []string{strings.Join(mdProse(readFile(t, f)), "\n")}, []int{1}
		default:
			continue
		}
		code := path.Ext(f) == ".go" && !strings.HasSuffix(f, "_test.go")
		dir := path.Dir(f)
		for i, text := range texts {
			for _, c := range labelCitations(text, lines[i], nl.letters, nl.defLine[f]) {
				checked++
				where := fmt.Sprintf("%s:%d: %q: ", f, c.line, c.text)
				note := ""
				if c.named != "" {
					note = noteFor(c.named, dir, c.first)
				}
				if note == "" {
					switch {
					case nl.has(f, c.first):
						note = f
					case nl.inDir(dir, c.first) != "":
						note = nl.inDir(dir, c.first)
					default:
						var in []string
						for n := range nl.defs {
							if nl.has(n, c.first) {
								in = append(in, n)
							}
						}
						slices.Sort(in)
						switch len(in) {
						case 0:
							problems = append(problems, where+c.first+" is defined in no note")
							continue
						case 1:
							note = in[0]
						default:
							problems = append(problems, where+c.first+" is defined in "+strings.Join(in, " and ")+": name the note")
							continue
						}
					}
				}
				bad := false
				for _, l := range []string{c.first, c.last} {
					if l != "" && !nl.has(note, l) {
						problems = append(problems, where+l+" is not defined in "+note)
						bad = true
					}
				}
				if bad || !code {
					continue
				}
				for l := range nl.defs[note] {
					if l == c.first || l[0] == c.letter && c.last != "" && labelNum(l) >= c.lo && labelNum(l) <= c.hi {
						cited[note+" "+l] = true
					}
				}
			}
		}
	}
	if checked < 200 {
		t.Fatalf("found only %d label citations: the scan is broken", checked)
	}
	for _, note := range slices.Sorted(maps.Keys(nl.defs)) {
		for _, l := range slices.Sorted(maps.Keys(nl.defs[note])) {
			if !cited[note+" "+l] {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: no production Go file cites it (stale, or the code that does it does not say so)",
					note, nl.defs[note][l].line, l))
			}
		}
	}
	if len(problems) > 0 {
		t.Errorf("%d problems with step labels:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
	}
}

func (nl *noteLabels) has(note, label string) bool {
	_, ok := nl.defs[note][label]
	return ok
}

// inDir returns the note of dir that defines label, or "".
func (nl *noteLabels) inDir(dir, label string) string {
	for note, defs := range nl.defs {
		if _, ok := defs[label]; ok && path.Dir(note) == dir {
			return note
		}
	}
	return ""
}

// labelNum returns a label's number: 2 for S2a.
func labelNum(label string) int {
	n, _ := strconv.Atoi(strings.TrimRight(label[1:], "abcdefghijklmnopqrstuvwxyz"))
	return n
}

// Names. A design note or a comment that explains code by a name must
// name something the code has. TestCitedNames checks, in the notes (the
// Markdown files beside a package's Go files) and in the comments of
// production Go files:
//
//   - every identifier in backquotes (`Latch`, `pool.news`, `spare()`),
//     and every dotted name in a comment (Latch.Set, w.sections): each
//     part must be declared in the production code of the package or of
//     a package of the repository it imports (a field, a method, a
//     variable or parameter count), or the first part must name a
//     standard package or a package of the repository that declares the
//     second part; a Test, Benchmark, Fuzz or Example function must be
//     declared in the package's tests;
//   - every word that is a name the package declares only in its tests
//     (Counter, a test helper): production code does not have it;
//   - a name and the file said to hold it ("`takeBack` (join.go)",
//     "`search.go` (search)"): the file must declare it.
//
// Code in backquotes that is not a name (`b - top < Cap()`) and dotted
// words that name files or hosts (job.go, golang.org) are not names.

// pkgNames is what the production code of one directory declares.
type pkgNames struct {
	dir     string
	name    string                     // the package clause
	decl    map[string]bool            // every declared name
	byFile  map[string]map[string]bool // file -> its top-level names, methods and fields
	imports map[string]string          // import name -> path
	tests   map[string]bool            // top-level names of the _test.go files
	funcs   map[string]bool            // its functions, methods and types
}

const modulePath = "github.com/forkjoin/fj"

func loadPkgNames(t *testing.T, files []string) map[string]*pkgNames {
	pkgs := map[string]*pkgNames{}
	get := func(dir string) *pkgNames {
		p := pkgs[dir]
		if p == nil {
			p = &pkgNames{dir: dir, decl: map[string]bool{}, byFile: map[string]map[string]bool{}, imports: map[string]string{}, tests: map[string]bool{}, funcs: map[string]bool{}}
			pkgs[dir] = p
		}
		return p
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if path.Ext(f) != ".go" || strings.Contains(f, "/testdata/") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ignored := false
		for _, cg := range file.Comments {
			if cg.Pos() < file.Package && strings.Contains(cg.Text(), "go:build ignore") || strings.HasPrefix(cg.List[0].Text, "//go:build ignore") {
				ignored = true
			}
		}
		if ignored {
			continue // a generator, not code of the package
		}
		p := get(path.Dir(f))
		if strings.HasSuffix(f, "_test.go") {
			for _, d := range file.Decls {
				for _, n := range topNames(d, false) {
					p.tests[n] = true
				}
			}
			continue
		}
		p.name = file.Name.Name
		own := map[string]bool{}
		p.byFile[f] = own
		for _, d := range file.Decls {
			for _, n := range topNames(d, true) {
				own[n] = true
			}
			switch d := d.(type) {
			case *ast.FuncDecl:
				p.funcs[d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						p.funcs[ts.Name.Name] = true
					}
				}
			}
		}
		for _, imp := range file.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			name := path.Base(ip)
			if strings.HasPrefix(name, "v") && strings.Trim(name[1:], "0123456789") == "" {
				name = path.Base(path.Dir(ip)) // math/rand/v2
			}
			if imp.Name != nil {
				name = imp.Name.Name
			}
			p.imports[name] = ip
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				p.decl[n.Name.Name] = true
			case *ast.TypeSpec:
				p.decl[n.Name.Name] = true
			case *ast.ValueSpec:
				for _, id := range n.Names {
					p.decl[id.Name] = true
				}
			case *ast.Field:
				for _, id := range n.Names {
					p.decl[id.Name] = true
				}
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					for _, e := range n.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							p.decl[id.Name] = true
						}
					}
				}
			case *ast.RangeStmt:
				if n.Tok == token.DEFINE {
					for _, e := range []ast.Expr{n.Key, n.Value} {
						if id, ok := e.(*ast.Ident); ok {
							p.decl[id.Name] = true
						}
					}
				}
			case *ast.LabeledStmt:
				p.decl[n.Label.Name] = true
			}
			return true
		})
	}
	for dir, p := range pkgs {
		if p.name == "" {
			delete(pkgs, dir) // tests only
		}
	}
	return pkgs
}

// topNames returns the names a top-level declaration declares; with
// members, also the methods and the fields of the types it declares.
func topNames(d ast.Decl, members bool) []string {
	var out []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || members {
			out = append(out, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name.Name)
				if !members {
					continue
				}
				var fields *ast.FieldList
				switch tt := s.Type.(type) {
				case *ast.StructType:
					fields = tt.Fields
				case *ast.InterfaceType:
					fields = tt.Methods
				}
				if fields != nil {
					for _, f := range fields.List {
						for _, id := range f.Names {
							out = append(out, id.Name)
						}
					}
				}
			case *ast.ValueSpec:
				for _, id := range s.Names {
					out = append(out, id.Name)
				}
			}
		}
	}
	return out
}

// stdNames returns the names of the standard library's packages.
func stdNames(t *testing.T) map[string]bool {
	out := map[string]bool{}
	root := filepath.Join(runtime.GOROOT(), "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "vendor" || d.Name() == "cmd" && filepath.Dir(p) == root {
				return fs.SkipDir
			}
			out[d.Name()] = true
		}
		return nil
	})
	if err != nil || !out["atomic"] || !out["runtime"] {
		t.Fatalf("listing the standard packages in %s: %v", root, err)
	}
	return out
}

var (
	backquoted = regexp.MustCompile("`([^`\n]+)`")
	goName     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$`)
	dottedName = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b`)
	// nameThenFile and fileThenName match a name and the file said to
	// hold it: "`takeBack` (join.go" and "search.go (search)".
	nameThenFile = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)(?:\\(\\))?`\\s+\\((?:in\\s+)?`?([A-Za-z0-9_./-]+\\.go)\\b")
	fileThenName = regexp.MustCompile("([A-Za-z0-9_./-]+\\.go)`?\\s+\\(`?([A-Za-z_][A-Za-z0-9_]*)(?:\\(\\))?`?\\)")
	fileExt      = map[string]bool{"go": true, "md": true, "mod": true, "sum": true, "s": true, "txt": true, "json": true, "svg": true, "png": true, "yml": true, "yaml": true, "sh": true, "html": true, "csv": true, "out": true, "prof": true, "test": true}
)

// goKeywordsAndBuiltins are names in backquotes that no package
// declares.
var goKeywordsAndBuiltins = strings.Fields(`break case chan const continue default defer else fallthrough for func go goto if
	import interface map package range return select struct switch type var
	any bool byte comparable complex128 complex64 error float32 float64 int int16 int32 int64 int8 rune string
	uint uint16 uint32 uint64 uint8 uintptr true false iota nil append cap clear close complex copy delete imag len
	make max min new panic print println real recover`)

type nameChecker struct {
	pkgs   map[string]*pkgNames
	byName map[string][]*pkgNames // package clause -> its directories
	std    map[string]bool
	tests  map[string]bool // the top-level names of every test file
	files  map[string]bool
	base   map[string][]string
}

// declared reports whether name is declared in the production code of p
// or of a package of the repository that p imports.
func (nc *nameChecker) declared(p *pkgNames, name string) bool {
	if p.decl[name] {
		return true
	}
	for _, ip := range p.imports {
		if dir, ok := strings.CutPrefix(ip, modulePath+"/"); ok && nc.pkgs[dir] != nil && nc.pkgs[dir].decl[name] {
			return true
		}
	}
	return false
}

// foreignNames are names in backquotes that the notes discuss and no Go
// package of the repository or the standard library exports: the Go
// runtime's internals (stall.md, sleep.md, wsdeque.md), an operating
// system's call and Java's fork-join pool (wsdeque.md, blocking.go).
var foreignNames = strings.Fields(`atomicstatus waitreason _Grunning _Gsyscall _Gwaiting runnext runqgrab
	FlushProcessWriteBuffers ForkJoinPool`)

// declaredAnywhere reports whether an exported name is declared in the
// production code of any package of the repository: a comment of a
// lower layer may name what a higher one builds on it (Stats.Spares in
// internal/sched names pool.Stats's field).
func (nc *nameChecker) declaredAnywhere(name string) bool {
	if !token.IsExported(name) {
		return false
	}
	for _, q := range nc.pkgs {
		if q.decl[name] {
			return true
		}
	}
	return false
}

// checkName returns what is wrong with a name cited in p's directory,
// or "". all says whether a dotted name whose first part is neither a
// type nor a package (w.sections) is checked.
func (nc *nameChecker) checkName(p *pkgNames, s string, all bool) string {
	s = strings.TrimSuffix(s, "()")
	parts := strings.Split(s, ".")
	first := parts[0]
	if slices.Contains(foreignNames, first) {
		return ""
	}
	for _, prefix := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if len(parts) == 1 && strings.HasPrefix(s, prefix) && len(s) > len(prefix) && token.IsExported(s[len(prefix):]) {
			if nc.tests[s] {
				return ""
			}
			return s + " is not a test of the repository"
		}
	}
	if len(parts) > 1 {
		if ip := p.imports[first]; ip != "" && !strings.HasPrefix(ip, modulePath) {
			return "" // a name of another module's package
		}
		for _, q := range nc.byName[first] {
			if q.decl[parts[1]] {
				return "" // pkg.Name, of a package of the repository
			}
		}
		if nc.byName[first] != nil && !p.decl[first] {
			return parts[1] + " is not declared in package " + first
		}
		if nc.std[first] && !p.decl[first] {
			return "" // a standard package's name
		}
		if !all && !token.IsExported(first) {
			return ""
		}
	}
	for _, part := range parts {
		switch {
		case slices.Contains(goKeywordsAndBuiltins, part) || nc.declared(p, part) || len(parts) == 1 && (p.imports[part] != "" || nc.byName[part] != nil):
		case p.tests[part]:
			return part + " is declared only in the tests of " + p.dir
		case nc.declaredAnywhere(part):
		default:
			return part + " is not declared in " + p.dir + " or the packages it imports"
		}
	}
	return ""
}

// checkFileName returns what is wrong with "name (file)" cited in dir.
func (nc *nameChecker) checkFileName(dir, name, file string) string {
	var f string
	switch {
	case nc.files[path.Join(dir, file)]:
		f = path.Join(dir, file)
	case nc.files[path.Clean(file)]:
		f = path.Clean(file)
	case len(nc.base[path.Base(file)]) == 1:
		f = nc.base[path.Base(file)][0]
	default:
		return "" // TestCitedFilesExist reports it, or it is ambiguous
	}
	p := nc.pkgs[path.Dir(f)]
	if p == nil || p.byFile[f] == nil || p.byFile[f][name] || !p.funcs[name] {
		return "" // a test file, the file declares it, or a field or variable: the file uses it
	}
	for _, own := range p.byFile {
		if own[name] {
			return name + " is not declared in " + f + " but in another file of its package"
		}
	}
	return ""
}

func TestCitedNames(t *testing.T) {
	files := repoFiles(t)
	nc := &nameChecker{pkgs: loadPkgNames(t, files), byName: map[string][]*pkgNames{}, std: stdNames(t), files: map[string]bool{}, base: map[string][]string{}}
	for _, f := range files {
		nc.files[f] = true
		nc.base[path.Base(f)] = append(nc.base[path.Base(f)], f)
	}
	nc.tests = map[string]bool{}
	for _, p := range nc.pkgs {
		nc.byName[p.name] = append(nc.byName[p.name], p)
		for n := range p.tests {
			nc.tests[n] = true
		}
	}
	if len(nc.pkgs) < 10 || nc.pkgs["internal/sched"] == nil || !nc.pkgs["internal/sched"].decl["Latch"] {
		t.Fatalf("found %d packages: the scan is broken", len(nc.pkgs))
	}
	nl := labelDefs(t, files)
	// testOnly matches, per directory, the names its tests declare and its
	// production code does not: not tests' own names (TestX, cited as
	// tests), nor names all in lower case (words of prose: fib, run).
	testOnly := map[string]*regexp.Regexp{}
	for dir, p := range nc.pkgs {
		var names []string
		for n := range p.tests {
			if !p.decl[n] && strings.ToLower(n) != n && !strings.HasPrefix(n, "Test") && !strings.HasPrefix(n, "Benchmark") && !strings.HasPrefix(n, "Fuzz") && !strings.HasPrefix(n, "Example") {
				names = append(names, regexp.QuoteMeta(n))
			}
		}
		if len(names) > 0 {
			testOnly[dir] = regexp.MustCompile(`\b(?:` + strings.Join(names, "|") + `)\b`)
		}
	}
	var problems []string
	checked := 0
	for _, f := range files {
		p := nc.pkgs[path.Dir(f)]
		if p == nil || path.Dir(f) == "." || slices.Contains(notCited, f) {
			continue // the module root's Markdown files are about every package
		}
		isGo := path.Ext(f) == ".go"
		if isGo && (strings.HasSuffix(f, "_test.go") || p.byFile[f] == nil) || !isGo && path.Ext(f) != ".md" {
			continue
		}
		var texts []string
		var lines []int
		if isGo {
			texts, lines = goComments(f, []byte(readFile(t, f)))
		} else {
			texts, lines = []string{strings.Join(mdProse(readFile(t, f)), "\n")}, []int{1}
		}
		for i, text := range texts {
			report := func(at int, cited, what string) {
				line := lines[i] + strings.Count(text[:at], "\n")
				problems = append(problems, fmt.Sprintf("%s:%d: %q: %s", f, line, cited, what))
			}
			seen := map[int]bool{} // the starts of names checked in backquotes
			for _, m := range backquoted.FindAllStringSubmatchIndex(text, -1) {
				s := text[m[2]:m[3]]
				if !goName.MatchString(s) || fileExt[s[strings.LastIndexByte(s, '.')+1:]] && strings.Contains(s, ".") {
					continue
				}
				checked++
				seen[m[2]] = true
				if what := nc.checkName(p, s, true); what != "" {
					report(m[0], text[m[0]:m[1]], what)
				}
			}
			if isGo {
				for _, m := range dottedName.FindAllStringIndex(text, -1) {
					s := text[m[0]:m[1]]
					if seen[m[0]] || m[0] > 0 && strings.ContainsRune("/.-@", rune(text[m[0]-1])) || m[1] < len(text) && strings.ContainsRune("/@-=", rune(text[m[1]])) ||
						fileExt[s[strings.LastIndexByte(s, '.')+1:]] || s == "e.g" || s == "i.e" || domainSegment.MatchString(s) && !nc.std[strings.Split(s, ".")[0]] && nc.byName[strings.Split(s, ".")[0]] == nil && !nc.declared(p, strings.Split(s, ".")[0]) {
						continue
					}
					checked++
					if what := nc.checkName(p, s, false); what != "" {
						report(m[0], s, what)
					}
				}
			}
			if re := testOnly[p.dir]; re != nil {
				for _, m := range re.FindAllStringIndex(text, -1) {
					n := text[m[0]:m[1]]
					if m[0] > 0 && text[m[0]-1] == '.' || seen[m[0]] {
						continue
					}
					ls := strings.LastIndexByte(text[:m[0]], '\n') + 1
					if isGo && strings.HasPrefix(text[ls:], "//\t") && !nl.defLine[f][lines[i]+strings.Count(text[:m[0]], "\n")] {
						continue // an example in a code block, not a label's definition
					}
					report(m[0], n, n+" is declared only in the tests of "+p.dir)
				}
			}
			for _, re := range []*regexp.Regexp{nameThenFile, fileThenName} {
				for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
					name, file := text[m[2]:m[3]], text[m[4]:m[5]]
					if re == fileThenName {
						name, file = file, name
					}
					checked++
					if what := nc.checkFileName(path.Dir(f), name, file); what != "" {
						report(m[0], text[m[0]:m[1]], what)
					}
				}
			}
		}
	}
	if checked < 300 {
		t.Fatalf("checked only %d names: the scan is broken", checked)
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		problems = slices.Compact(problems)
		t.Errorf("%d names in notes and comments that the code does not have:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
	}
}

// TestLabelCitationsScan checks the scanner of label citations on the
// shapes it must take and the ones it must leave.
func TestLabelCitationsScan(t *testing.T) {
	letters := map[byte]bool{'S': true, 'E': true, 'D': true, 'M': true, 'C': true}
	text := "(sleep.md, S2a) and sleep.md's S2; step E1 of job.go;\n" +
		"job.go E1-E2, E4; (search.go, M2); wsdeque.md, D5a; D8; C1–C4.\n" +
		"not: T1, S100, s2, ZS1, sleep.md; S3"
	var got []string
	for _, c := range labelCitations(text, 10, letters, nil) {
		got = append(got, fmt.Sprintf("%d:%s|%s|%s-%s|%d-%d", c.line, c.text, c.named, c.first, c.last, c.lo, c.hi))
	}
	want := []string{
		"10:sleep.md, S2a|sleep.md|S2a-|2-2",
		"10:sleep.md's S2|sleep.md|S2-|2-2",
		"10:E1 of job.go|job.go|E1-|1-1",
		"11:job.go E1-E2|job.go|E1-E2|1-2",
		"11:job.go E1-E2, E4|job.go|E4-|4-4",
		"11:search.go, M2|search.go|M2-|2-2",
		"11:wsdeque.md, D5a|wsdeque.md|D5a-|5-5",
		"11:D8||D8-|8-8",
		"11:C1–C4||C1-C4|1-4",
		"12:S3||S3-|3-3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("labelCitations =\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
