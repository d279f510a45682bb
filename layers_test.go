package fj_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The module's packages in layer order (doc.go): each may import only
// packages earlier in the list. Test-only helpers under internal/ import
// nothing public.
var layers = []string{
	"internal/fjtest",
	"internal/wsdeque",
	"deque",
	"internal/sched",
	"internal/schedtest",
	"pool",
	"forkjoin",
	"taskblock",
	"parallel",
}

func TestImportsFollowTheLayers(t *testing.T) {
	const mod = "github.com/forkjoin/fj/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		name := strings.TrimPrefix(pkg, mod)
		at := slices.Index(layers, name)
		if at < 0 {
			continue // the root and examples/: they may use everything
		}
		for _, imp := range strings.Fields(imports) {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			if i := slices.Index(layers, dep); i < 0 || i >= at {
				t.Errorf("%s imports %s, which is not above it in the layers of doc.go", name, dep)
			}
		}
		if strings.HasPrefix(name, "internal/") {
			for _, imp := range strings.Fields(imports) {
				if dep := strings.TrimPrefix(imp, mod); imp != dep && !strings.HasPrefix(dep, "internal/") {
					t.Errorf("%s (internal) imports the public package %s", name, dep)
				}
			}
		}
	}
}
