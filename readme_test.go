package fj_test

import (
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The README is what a newcomer reads to the end: what fj is, the two
// commands, a tour, the semantics. Tables, peers and design notes live in
// docs/ and are linked from it.
const readmeMaxLines = 350

func TestReadmeIsShort(t *testing.T) {
	src, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move tables and design notes to docs/ and link them", n, readmeMaxLines)
	}
}

// TestReadmeCommands checks that "Try it" gives exactly the two commands
// a fresh clone needs, and that the showcase they run exists. (CI runs
// the second one.)
func TestReadmeCommands(t *testing.T) {
	src, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "\n## Try it\n")
	if i < 0 {
		t.Fatal(`README.md has no "## Try it" section`)
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	if start < 0 {
		t.Fatal(`README.md's "Try it" has no sh block`)
	}
	block := s[start+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	var cmds []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmds = append(cmds, strings.Join(strings.Fields(cmd), " "))
	}
	want := []string{"go run ./examples/showcase", "go test ./..."}
	if !slices.Equal(cmds, want) {
		t.Errorf("README.md's Try it commands = %q, want %q", cmds, want)
	}
	if _, err := os.Stat("examples/showcase/main.go"); err != nil {
		t.Errorf("the showcase the README runs: %v", err)
	}
}

// repoFiles lists the files of the repository under the working directory
// (the module root, where go test runs this package), slash-separated and
// relative, skipping hidden directories (.git, .ci) and their contents.
func repoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		files = append(files, filepath.ToSlash(p))
		return nil
	})
	if err != nil {
		t.Fatalf("walking the repository: %v", err)
	}
	return files
}

// mdLink matches an inline Markdown link or image: [text](target) or
// ![alt](target), with an optional title.
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// mdProse returns the lines of a Markdown file outside fenced code
// blocks, with their numbers; the lines inside are returned empty.
func mdProse(src string) []string {
	lines := strings.Split(src, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives a Markdown file's headings:
// lower case, punctuation dropped, spaces as hyphens, and -1, -2, ... on
// repeats.
func anchors(src string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range mdProse(src) {
		t := strings.TrimLeft(l, "#")
		if len(t) == len(l) || len(l)-len(t) > 6 || !strings.HasPrefix(t, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(t)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocLinksResolve checks that every relative link in the repository's
// Markdown files (README.md, docs/, the design notes) names a file or
// directory that exists, and that an anchor into a Markdown file names one
// of its headings.
func TestDocLinksResolve(t *testing.T) {
	var mds []string
	for _, f := range repoFiles(t) {
		if path.Ext(f) == ".md" {
			mds = append(mds, f)
		}
	}
	if !slices.Contains(mds, "README.md") || !slices.Contains(mds, "docs/performance.md") {
		t.Fatalf("Markdown files found: %q; want README.md and docs/performance.md among them", mds)
	}
	sources := map[string]string{}
	read := func(f string) (string, error) {
		if s, ok := sources[f]; ok {
			return s, nil
		}
		b, err := os.ReadFile(f)
		sources[f] = string(b)
		return string(b), err
	}
	links := 0
	for _, f := range mds {
		src, err := read(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range mdProse(src) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				where := f + ":" + strconv.Itoa(i+1) + ": " + target
				file, anchor, _ := strings.Cut(target, "#")
				dest := f
				if file != "" {
					dest = path.Join(path.Dir(f), file)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s: no such file or directory", where)
						continue
					}
				}
				if anchor == "" || path.Ext(dest) != ".md" {
					continue
				}
				dsrc, err := read(dest)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if !anchors(dsrc)[anchor] {
					t.Errorf("%s: %s has no heading with anchor #%s", where, dest, anchor)
				}
			}
		}
	}
	if links < 20 {
		t.Fatalf("found only %d relative links: the scan is broken", links)
	}
}

func TestAnchors(t *testing.T) {
	got := anchors("# fj — fork/join parallelism for Go\n```\n# not a heading\n```\n" +
		"## Errors, cancellation and early exit\n### Work overhead: the Cilk-5 programs\n## Try it\n## Try it\n#nope\n")
	want := map[string]bool{
		"fj--forkjoin-parallelism-for-go":    true,
		"errors-cancellation-and-early-exit": true,
		"work-overhead-the-cilk-5-programs":  true,
		"try-it":                             true,
		"try-it-1":                           true,
	}
	if !maps.Equal(got, want) {
		t.Errorf("anchors = %v, want %v", got, want)
	}
}
