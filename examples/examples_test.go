// Package examples_test builds every example program and runs it with
// small inputs, so that none of them can rot unnoticed.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// run lists, per example, small arguments and strings its output must
// contain.
var run = map[string]struct {
	args []string
	want []string
}{
	"fib":        {[]string{"-n", "16"}, []string{"fib(16) = 987", "fj forkjoin.Join"}},
	"nqueens":    {[]string{"-n", "8"}, []string{"8-queens: 92 solutions"}},
	"quicksort":  {[]string{"-n", "100000"}, []string{"parallel.Sort", "speedup over slices.Sort"}},
	"treewalk":   {[]string{"-depth", "12", "-cut", "4", "-runs", "3"}, []string{"sum 8178", "blocks vs goroutines", "x sequential"}},
	"mandelbrot": {[]string{"-size", "64", "-iter", "50"}, []string{"64x64", "wrote"}},
	"showcase":   {[]string{"-small"}, []string{"fib", "Mandelbrot", "tree walk", "speedup", "machine check:", "machine check after the runs:", "from the algorithm"}},
}

// onlyWithWorkers names the lines an example prints only when its pool has
// more than one worker: the showcase splits a speedup into the
// algorithm's part and the other workers' part, which a one-CPU machine
// (GOMAXPROCS=1) has no second factor for.
var onlyWithWorkers = map[string]bool{"from the algorithm": true}

func TestExamplesBuildAndRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example")
	}
	bin := t.TempDir()
	build := exec.Command(goTool(), "build", "-o", bin+string(os.PathSeparator), "./...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			spec, ok := run[name]
			if !ok {
				t.Fatalf("example %s has no entry in the run table of examples_test.go", name)
			}
			args := spec.args
			if name == "mandelbrot" {
				args = append(args, "-o", filepath.Join(t.TempDir(), "m.png"))
			}
			// A temporary directory of the example's own: what it leaves
			// there is checked below.
			tmp := t.TempDir()
			cmd := exec.Command(filepath.Join(bin, name), args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", name, args, err, out)
			}
			if name == "showcase" {
				checkShowcaseOutput(t, string(out), tmp)
				checkShowcaseImage(t, filepath.Join(bin, name))
			}
			oneWorker := strings.Contains(string(out), "fj showcase: 1 workers,")
			for _, w := range spec.want {
				if oneWorker && onlyWithWorkers[w] {
					continue
				}
				if !strings.Contains(string(out), w) {
					t.Errorf("%s output lacks %q:\n%s", name, w, out)
				}
			}
		})
	}
}

// checkShowcaseOutput checks what the showcase, run without -png or
// -pngtemp, printed and left behind: every line fits 100 columns, and it
// wrote no image, to the temporary directory tmp or anywhere it names.
// The width does not depend on the load: every figure is printed in at
// most four characters (sig3), so a busy machine's wide spreads and its
// BUSY tags (narrower than their column's header) widen no line. Under
// load a spread's slowest run had printed five digits, and the table's
// lines were 101 and 102 columns.
func checkShowcaseOutput(t *testing.T, out, tmp string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("showcase output line %d is %d columns wide, more than 100:\n%s", i+1, n, line)
		}
	}
	if strings.Contains(out, "Mandelbrot image:") {
		t.Errorf("showcase without -png or -pngtemp names an image:\n%s", out)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("showcase without -png or -pngtemp left %d files in its temporary directory, e.g. %s", len(left), left[0].Name())
	}
}

// goTool returns the go command that runs the tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
