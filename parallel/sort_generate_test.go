package parallel_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedSortsAreFresh fails when zsortfunc.go or zsortordered.go is
// not what gen_sort_variants.go writes: someone edited a generated file,
// or the template without running go generate.
func TestGeneratedSortsAreFresh(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator with:", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(goCmd, "run", "gen_sort_variants.go", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen_sort_variants.go: %v\n%s", err, out)
	}
	for _, name := range []string{"zsortfunc.go", "zsortordered.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./parallel", name)
		}
	}
}
