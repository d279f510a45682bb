package fjvet_test

import (
	"fmt"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/forkjoin/fj/fjvet"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// repoRoot is the root of the fj repository, which holds this module.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "pool", "pool.go")); err != nil {
		t.Fatalf("the fj repository is not at %s: %v", root, err)
	}
	return root
}

// load loads packages with their syntax and types (dependencies from
// export data), tolerating type errors: README snippets call functions
// they do not declare.
func load(t *testing.T, dir string, tests bool, overlay map[string][]byte, patterns ...string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode:    packages.LoadSyntax,
		Dir:     dir,
		Tests:   tests,
		Overlay: overlay,
		Env:     append(os.Environ(), "GOFLAGS="+os.Getenv("GOFLAGS")+" -mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatalf("loading %v in %s: %v", patterns, dir, err)
	}
	return pkgs
}

// analyze runs the analyzer over one loaded package, as a driver would,
// and returns its findings. Type errors are the caller's business.
func analyze(t *testing.T, pkg *packages.Package, overlay map[string][]byte) []analysis.Diagnostic {
	t.Helper()
	var diags []analysis.Diagnostic
	pass := &analysis.Pass{
		Analyzer:   fjvet.Analyzer,
		Fset:       pkg.Fset,
		Files:      pkg.Syntax,
		Pkg:        pkg.Types,
		TypesInfo:  pkg.TypesInfo,
		TypesSizes: pkg.TypesSizes,
		ResultOf:   map[*analysis.Analyzer]any{},
		Report:     func(d analysis.Diagnostic) { diags = append(diags, d) },
		ReadFile: func(name string) ([]byte, error) {
			if b, ok := overlay[name]; ok {
				return b, nil
			}
			return os.ReadFile(name)
		},
	}
	if _, err := fjvet.Analyzer.Run(pass); err != nil {
		t.Fatalf("%s: %v", pkg.PkgPath, err)
	}
	return diags
}

func describe(pkg *packages.Package, diags []analysis.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "\n\t%s: %s", pkg.Fset.Position(d.Pos), d.Message)
	}
	return b.String()
}

// readmeSnippets returns the Go blocks of the README, each made into a
// file of a package of its own: its top-level functions as declarations,
// its other lines as the body of a function, with every import a
// snippet of the README may use.
func readmeSnippets(t *testing.T, root string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(src), -1)
	var files []string
	for i, m := range blocks {
		var decls, body []string
		in := false
		for _, line := range strings.Split(m[1], "\n") {
			switch {
			case strings.HasPrefix(line, "func ") || strings.HasPrefix(line, "type "):
				in = !strings.HasSuffix(line, "}")
				decls = append(decls, line)
			case in:
				decls = append(decls, line)
				in = line != "}"
			default:
				body = append(body, "\t"+line)
			}
		}
		files = append(files, fmt.Sprintf(`package snippet%d

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

var (
	_ = cmp.Compare[int]
	_ = fmt.Sprint
	_ sync.WaitGroup
	_ = forkjoin.Invoke[int]
	_ = parallel.Grain
	_ = taskblock.Define
)

%s

func snippet(p *pool.Pool, ctx context.Context) {
%s
}
`, i, strings.Join(decls, "\n"), strings.Join(body, "\n")))
	}
	return files
}

// TestReadmeSnippets runs the analyzer over the README's Go snippets:
// the code users copy must produce no finding. The snippets call
// functions they do not declare (walk, render, fetch), so they are
// type-checked as far as they go; the test checks that the fj calls in
// them were typed, so that the analyzer saw them.
func TestReadmeSnippets(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	writeModule(t, dir, root, "example.com/snippets")
	files := readmeSnippets(t, root)
	if len(files) < 6 {
		t.Fatalf("found %d Go snippets in README.md: the extraction is broken", len(files))
	}
	for i, src := range files {
		d := filepath.Join(dir, fmt.Sprintf("snippet%d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "snippet.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	typed := 0
	for _, pkg := range load(t, dir, false, nil, "./...") {
		if pkg.Types == nil || pkg.TypesInfo == nil {
			t.Fatalf("%s: not type-checked: %v", pkg.PkgPath, pkg.Errors)
		}
		if diags := analyze(t, pkg, nil); len(diags) > 0 {
			t.Errorf("README snippet %s:%s", pkg.PkgPath, describe(pkg, diags))
		}
		for _, f := range pkg.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok && strings.Contains(pkg.TypesInfo.TypeOf(lit).String(), "pool.Worker") {
					typed++
				}
				return true
			})
		}
	}
	if typed < 10 {
		t.Errorf("only %d function literals of the README's snippets take a typed *pool.Worker: the analyzer saw too little of them", typed)
	}
}

// writeModule writes a go.mod (and fj's go.sum) for a module that
// requires fj from the repository at root.
func writeModule(t *testing.T, dir, root, path string) {
	t.Helper()
	mod := fmt.Sprintf("module %s\n\ngo 1.23\n\nrequire github.com/forkjoin/fj v0.0.0-00010101000000-000000000000\n\nreplace github.com/forkjoin/fj => %s\n", path, root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The forgotten sections: the errgroup port of bench/ (egFJ and its
// caller-context twin, and BenchmarkStallErrgroupPort's bodies) and the
// other stall benchmarks, with their pool.Blocking wrappers taken out,
// and the //fjvet:ignore comments that mark the deliberate misuse left in
// them. The analyzer must report each line that lost its section (and
// each that had a comment), and nothing else. The files are changed in
// an overlay; the repository is left alone.
func TestForgottenSectionsOfBench(t *testing.T) {
	root := repoRoot(t)
	bench := filepath.Join(root, "bench")
	section := regexp.MustCompile(`pool\.Blocking\(func\(\) \{ (.*) \}\)`)
	method := regexp.MustCompile(`pool\.Blocking\(([A-Za-z_.]+)\)`)
	directive := regexp.MustCompile(`\s*//fjvet:ignore .*$`)
	overlay := map[string][]byte{}
	want := map[string]bool{} // file:line
	for _, name := range []string{"errgroup_test.go", "stall_test.go"} {
		path := filepath.Join(bench, name)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for i, l := range lines {
			orig := l
			l = section.ReplaceAllString(l, "$1")
			l = method.ReplaceAllString(l, "$1()")
			if l != orig && !strings.HasSuffix(strings.TrimSpace(l), ".Lock()") && !strings.Contains(l, "close(") {
				// A Lock that lost its section is a short critical
				// section of its own; the lock held across the join it
				// waits for is reported where that lock is taken. A
				// close does not block.
				want[fmt.Sprintf("%s:%d", name, i+1)] = true
			}
			if d := directive.ReplaceAllString(l, ""); d != l {
				l = d
				if strings.TrimSpace(l) == "" {
					want[fmt.Sprintf("%s:%d", name, i+2)] = true // it stood above its line
				} else {
					want[fmt.Sprintf("%s:%d", name, i+1)] = true
				}
			}
			lines[i] = l
		}
		overlay[path] = []byte(strings.Join(lines, "\n"))
	}
	for _, must := range []string{"errgroup_test.go", "stall_test.go"} {
		n := 0
		for k := range want {
			if strings.HasPrefix(k, must+":") {
				n++
			}
		}
		if n < 2 {
			t.Fatalf("%s: %d lines changed; the patterns no longer match the file (want its sections)", must, n)
		}
	}
	var pkg *packages.Package
	for _, p := range load(t, bench, true, overlay, ".") {
		if p.Name == "bench" && strings.Contains(p.ID, "[") {
			pkg = p // the package with its tests
		}
	}
	if pkg == nil {
		t.Fatal("bench's test package not found")
	}
	if len(pkg.TypeErrors) > 0 {
		t.Fatalf("bench with its sections removed does not type-check: %v", pkg.TypeErrors)
	}
	got := map[string]bool{}
	for _, d := range analyze(t, pkg, overlay) {
		p := pkg.Fset.Position(d.Pos)
		k := fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
		got[k] = true
		if !want[k] {
			t.Errorf("unexpected finding at %s: %s", k, d.Message)
		} else {
			t.Logf("%s: %s", k, d.Message)
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s lost its section (or its //fjvet:ignore), and nothing is reported there", k)
		}
	}
}

// buildFjvet builds the command into a temporary directory.
func buildFjvet(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fjvet")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/fjvet")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/fjvet: %v\n%s", err, out)
	}
	return bin
}

// go vet -vettool=fjvet works from a module that requires fj, and so does
// fjvet on its own: both find the two captured workers, and
// nothing in the correct file beside them.
func TestVetFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fjvet and vets a module")
	}
	root := repoRoot(t)
	bin := buildFjvet(t)
	dir := t.TempDir()
	writeModule(t, dir, root, "example.com/user")
	src := `package user

import (
	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fib, n-1, n-2)
	return a + b
}

func Fibs(w *pool.Worker, out []int) {
	parallel.For(w, 0, len(out), func(_ *pool.Worker, i int) {
		a, b := forkjoin.JoinArgs(w, fib, i, i+1)
		out[i] = a + b
	})
}

func SortRows(w *pool.Worker, rows [][]int) {
	parallel.For(w, 0, len(rows), func(_ *pool.Worker, i int) {
		parallel.Sort(w, rows[i])
	})
}

func Correct(p *pool.Pool, rows [][]int) {
	parallel.For(p, 0, len(rows), func(w *pool.Worker, i int) { parallel.Sort(w, rows[i]) })
}
`
	if err := os.WriteFile(filepath.Join(dir, "user.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS="+os.Getenv("GOFLAGS")+" -mod=mod", "GOWORK=off")
	for _, args := range [][]string{
		{"go", "vet", "-vettool=" + bin, "./..."},
		{bin, "./..."},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s: succeeded, want findings\n%s", strings.Join(args, " "), out)
		}
		var found []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "captured-worker: w is the *pool.Worker") {
				found = append(found, l[strings.Index(l, "user.go"):strings.Index(l, ": captured")])
			} else if strings.Contains(l, ".go:") {
				t.Errorf("%s: unexpected: %s", args[0], l)
			}
		}
		if want := []string{"user.go:19:29", "user.go:26:17"}; !slices.Equal(found, want) {
			t.Errorf("%s: captured workers found at %q, want %q\n%s", strings.Join(args, " "), found, want, out)
		}
	}
}
