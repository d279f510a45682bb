package sched

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// A remote is a Worker's memory (remote.go): field by field, at the same
// offsets and of the same sizes, the names it keeps being the Worker's,
// so that the casts between them are sound on every platform the tests
// are built for.
func TestRemoteLayout(t *testing.T) {
	w, r := reflect.TypeFor[Worker](), reflect.TypeFor[remote]()
	if w.Size() != r.Size() || w.Align() != r.Align() {
		t.Fatalf("Worker: size %d, align %d; remote: size %d, align %d", w.Size(), w.Align(), r.Size(), r.Align())
	}
	if w.NumField() != r.NumField() {
		t.Fatalf("Worker has %d fields, remote %d", w.NumField(), r.NumField())
	}
	named := 0
	for i := range w.NumField() {
		wf, rf := w.Field(i), r.Field(i)
		if wf.Offset != rf.Offset || wf.Type.Size() != rf.Type.Size() || wf.Type.Align() != rf.Type.Align() {
			t.Errorf("field %d: Worker.%s at %d (%v), remote.%s at %d (%v)", i, wf.Name, wf.Offset, wf.Type, rf.Name, rf.Offset, rf.Type)
		}
		switch {
		case rf.Name == "_":
		case rf.Name != wf.Name:
			t.Errorf("field %d: remote.%s stands where Worker.%s does", i, rf.Name, wf.Name)
		case rf.Name == "dq":
			named++ // a Stealer is a Deque's memory (wsdeque.go)
		case rf.Type != wf.Type:
			t.Errorf("remote.%s is a %v, Worker.%s a %v", rf.Name, rf.Type, wf.Name, wf.Type)
		default:
			named++
		}
	}
	t.Logf("a remote names %d of the Worker's %d fields", named, w.NumField())
}

// asHolder is the one way from a remote to its holder's state: these are
// its callers, each a goroutine that holds the worker or is about to
// (remote.go). A new one must say why it is sound, and be listed here.
func TestAsHolderCallers(t *testing.T) {
	want := []string{
		"caller.go: (*Pool).entryOf",             // the calling goroutine's own entry (I4)
		"caller.go: (*Pool).entryOf",             // the scan while holders overflow (I5)
		"carrier.go: (*carrier).run",             // c's goroutine, holding w or waiting to be handed it (C2, C4)
		"ctl_model_test.go: (*ctlChecker).apply", // the model plays every worker's holder
		"ctl_model_test.go: (*ctlChecker).check",
		"handover.go: (*Pool).handOver", // the monitor between Y3 and the hand-off (stall.md, Y4)
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return strings.HasSuffix(fi.Name(), ".go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok {
						if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "asHolder" {
							got = append(got, name+": "+funcName(fd))
						}
					}
					return true
				})
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("asHolder's callers:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// funcName is fd's name with its receiver's type, as in (*Pool).entryOf.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil {
		return fd.Name.Name
	}
	recv := fd.Recv.List[0].Type
	star := ""
	if s, ok := recv.(*ast.StarExpr); ok {
		recv, star = s.X, "*"
	}
	return "(" + star + recv.(*ast.Ident).Name + ")." + fd.Name.Name
}

// The main offsets again, at compile time, for the platforms the tests are
// only built for (as layout_test.go does for the Worker).
var layoutRemote remote

var _ = [1]struct{}{}[unsafe.Offsetof(layoutRemote.cur)-unsafe.Offsetof(layoutWorker.cur)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.cur)-unsafe.Offsetof(layoutRemote.cur)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutRemote.holder)-unsafe.Offsetof(layoutWorker.holder)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.holder)-unsafe.Offsetof(layoutRemote.holder)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutRemote.parked)-unsafe.Offsetof(layoutWorker.parked)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.parked)-unsafe.Offsetof(layoutRemote.parked)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutRemote.raceSync)-unsafe.Offsetof(layoutWorker.raceSync)]
var _ = [1]struct{}{}[unsafe.Offsetof(layoutWorker.raceSync)-unsafe.Offsetof(layoutRemote.raceSync)]
var _ = [1]struct{}{}[unsafe.Sizeof(layoutRemote)-unsafe.Sizeof(layoutWorker)]
var _ = [1]struct{}{}[unsafe.Sizeof(layoutWorker)-unsafe.Sizeof(layoutRemote)]
