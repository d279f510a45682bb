package fj_test

import (
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The files of internal/sched by floor, the ground floor first: a file
// may name what is declared in itself, on its own floor or on a floor
// below, and nothing above, but for the exceptions below (issue 48: each
// mechanism's state is a type in its own file, and the files' references
// run down, as the packages' do in layers above). The files of one floor
// but the last do not name each other; files built only with a tag
// (debug_on.go, race_on.go, look_nogetg.go) stand beside their
// counterparts, and only the default build is checked.
var schedFloors = [][]string{
	{"types.go"}, // Pool, Worker, task, carrier: what every room shares
	{"debug_off.go", "debug_on.go", "look_getg.go", "look_nogetg.go", "public.go", "remote.go", "worker.go"},
	{"look.go"}, // the look at a g (V1-V5) and fj's own Lock (V3)
	{"identity.go", "injector.go"},
	{"race_off.go", "race_on.go", "stats.go"},
	{"sleep.go"},
	{"carrier.go", "search.go"},
	{"handover.go"},
	{"caller.go", "capture.go", "region.go", "report.go"},
	{"config.go", "debug.go"},
	{"blocking.go", "fork.go", "wait.go"},
	{"job.go", "loophints.go", "stall.go"},
	{"join.go", "loop.go", "pool.go"},
	{"dispatch.go", "future.go"},
	// The typed forms: zjoin.go is generated (gen_joins.go) for the
	// job types of typed.go and group.go, and they call what it makes.
	{"group.go", "typed.go", "zjoin.go"},
}

// schedUp lists the references that run up a floor, each with its
// reason, by the file that names and the one that declares: the names
// are all the ones it may name there. A listed reference that no longer
// runs up fails too, so that the list stays what the code does.
var schedUp = []struct {
	from, to, names, why string
}{
	// Pool and Worker hold each mechanism's state by value (types.go),
	// and a remote is a Worker's memory (remote.go): a field's type, no
	// code.
	{"types.go", "blocking.go", "sectionGauge", "Pool.sections, by value"},
	{"types.go", "identity.go", "holders", "Pool.holders, by value"},
	{"types.go", "injector.go", "injector", "Pool.inj, by value"},
	{"types.go", "look.go", "Lock gHandle", "Worker.hmu, by value; Worker.holderG and carrier.g point to a runtime g"},
	{"types.go", "region.go", "scope", "Worker.scope and task.scope point to a Region"},
	{"types.go", "remote.go", "remote", "Pool.workers and carrier.w are remotes"},
	{"types.go", "stall.go", "stallWatch", "Pool.stall, by value"},
	{"types.go", "stats.go", "counters flushedCounters", "Worker.counts and Worker.flushed, by value"},
	{"remote.go", "look.go", "Lock gHandle", "the Worker's hmu and holderG"},
	{"remote.go", "region.go", "scope", "the Worker's scope, blank"},
	{"remote.go", "stats.go", "counters flushedCounters", "the Worker's counts (blank) and flushed"},
	// The net (stall.md) watches the paths below it, which arm it and
	// count for it.
	{"remote.go", "stall.go", "armOnResume", "a resume arms the stall watch (W2)"},
	{"sleep.go", "stall.go", "armStalls stallIdle", "a publisher that finds every worker busy arms the stall watch (W2)"},
	{"handover.go", "stall.go", "handOvers spares", "a hand-over counts itself in the watch's Stats counts (Y4)"},
	{"report.go", "stall.go", "atLimit dumps first g handOvers handler handlerG lastHandOver looks reported stallSeen stallWork threshold wait", "the report (W5) tells what the monitor saw"},
	{"stats.go", "stall.go", "atLimit handOvers spares stalls", "Stats reads the watch's counts"},
	{"stats.go", "blocking.go", "in most", "Stats reads the section gauge's counts"},
	// fj's Lock (V3) marks the worker its caller holds while it waits,
	// and the look reads the holder's state and id.
	{"look.go", "caller.go", "heldWorker", "Lock marks the waiting holder's worker (V3)"},
	{"look.go", "identity.go", "goid goidAsm goidFast", "the look checks a g's id as identity reads it (V1, V4)"},
	{"look.go", "sleep.go", "awake runningMask", "a holder asleep or between tasks is not blocked (V5)"},
	// A carrier handed its worker runs the holder loop, whose hand-offs
	// are the carrier's.
	{"carrier.go", "loop.go", "hold", "the carrier's body is the holder loop (C2)"},
}

// The files of internal/sched name only what their floor allows.
func TestSchedFilesFollowTheirFloors(t *testing.T) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export,Dir,GoFiles,IgnoredGoFiles", "./internal/sched").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	type listed struct {
		ImportPath, Export, Dir string
		GoFiles, IgnoredGoFiles []string
	}
	exports := map[string]string{}
	var sched listed
	for dec := json.NewDecoder(strings.NewReader(string(out))); dec.More(); {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		sched = p // the last one: -deps lists a package after its imports
	}

	floor := map[string]int{}
	for i, files := range schedFloors {
		for _, f := range files {
			floor[f] = i
		}
	}
	for _, f := range sched.GoFiles {
		if _, ok := floor[f]; !ok {
			t.Errorf("%s has no floor in schedFloors", f)
		}
	}
	for f := range floor {
		if !slices.Contains(sched.GoFiles, f) && !slices.Contains(sched.IgnoredGoFiles, f) {
			t.Errorf("schedFloors lists %s, which internal/sched does not have", f)
		}
	}

	fset := token.NewFileSet()
	var files []*ast.File
	for _, f := range sched.GoFiles {
		af, err := parser.ParseFile(fset, filepath.Join(sched.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, af)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check(sched.ImportPath, fset, files, info)
	if err != nil {
		t.Fatal(err)
	}

	// up[from→to] is the set of names from takes from a file above it.
	up := map[[2]string]map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() || (obj.Parent() != nil && obj.Parent() != pkg.Scope()) {
			continue // another package's, built in, or local
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if floor[to] > floor[from] || (floor[to] == floor[from] && from != to && floor[from] != len(schedFloors)-1) {
			k := [2]string{from, to}
			if up[k] == nil {
				up[k] = map[string]bool{}
			}
			up[k][obj.Name()] = true
		}
	}
	for _, x := range schedUp {
		k := [2]string{x.from, x.to}
		names := strings.Fields(x.names)
		if got := sortedKeys(up[k]); !slices.Equal(got, names) {
			t.Errorf("%s names %q of %s, on a floor not below it; schedUp lists %q (%s)", x.from, got, x.to, names, x.why)
		}
		delete(up, k)
	}
	for k, names := range up {
		t.Errorf("%s (floor %d) names %q of %s (floor %d): not below it", k[0], floor[k[0]], sortedKeys(names), k[1], floor[k[1]])
	}
}

func sortedKeys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
