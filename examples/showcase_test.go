package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkShowcaseImage checks that the showcase at bin writes its image
// only when asked: with -png to the file given, with -pngtemp to a new
// file in the temporary directory, whose name it prints; two runs never
// share a file. (Without either flag it writes none: checkShowcaseOutput.)
func checkShowcaseImage(t *testing.T, bin string) {
	t.Helper()
	tmp := t.TempDir()
	image := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-small", "-runs", "1"}, args...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("showcase %v: %v\n%s", args, err, out)
		}
		_, name, ok := strings.Cut(string(out), "Mandelbrot image: ")
		if !ok {
			t.Fatalf("showcase %v names no image:\n%s", args, out)
		}
		name, _, _ = strings.Cut(name, "\n")
		if fi, err := os.Stat(name); err != nil || fi.Size() == 0 {
			t.Fatalf("showcase %v: the image %s: %v", args, name, err)
		}
		return name
	}
	a, b := image("-pngtemp"), image("-pngtemp")
	if filepath.Dir(a) != tmp || filepath.Dir(b) != tmp || a == b {
		t.Errorf("-pngtemp wrote %s, then %s: want two new files in %s", a, b, tmp)
	}
	given := filepath.Join(t.TempDir(), "m.png")
	if got := image("-png", given); got != given {
		t.Errorf("-png %s wrote %s", given, got)
	}
	if err := exec.Command(bin, "-png", given, "-pngtemp").Run(); err == nil {
		t.Error("-png with -pngtemp: no usage error")
	}
}
