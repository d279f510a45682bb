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
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := t.TempDir()
	build := exec.Command(goTool, "build", "-o", bin+string(os.PathSeparator), "./...")
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
			if name == "showcase" {
				args = append(args, "-png", filepath.Join(t.TempDir(), "m.png"))
			}
			out, err := exec.Command(filepath.Join(bin, name), args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", name, args, err, out)
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
