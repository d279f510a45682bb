package sched

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedJoinsAreFresh fails when zjoin.go is not what gen_joins.go
// writes: someone edited the generated file, or the skeleton without
// running go generate.
func TestGeneratedJoinsAreFresh(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator with:", err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(goCmd, "run", "gen_joins.go", "-o", dir).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_joins.go: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(dir, "zjoin.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("zjoin.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("zjoin.go is stale: run go generate ./internal/sched")
	}
}
