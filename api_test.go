package fj_test

import (
	"flag"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The public packages' exported APIs are pinned in testdata/api: a name
// added or removed must be added or removed there too (go test -run API
// -update . rewrites the files), so that growth is deliberate. Every
// exported function, type and method has a runnable Example, and nothing a
// user reads in go doc mentions the module's internal packages.

var update = flag.Bool("update", false, "rewrite testdata/api from the packages")

var publicPackages = []string{"deque", "pool", "forkjoin", "taskblock", "parallel"}

// exported returns the exported names of the package in dir, as
// "func Name", "type Name", "method Type.Name", "field Type.Name",
// "var Name" or "const Name",
// sorted, and the package's doc (with examples from its test files).
func exported(t *testing.T, dir string) ([]string, *doc.Package) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var files, tests []*ast.File
	for name, p := range pkgs {
		for fname, f := range p.Files {
			if strings.HasSuffix(fname, "_test.go") {
				tests = append(tests, f)
			} else if !strings.HasSuffix(name, "_test") {
				files = append(files, f)
			}
		}
	}
	d, err := doc.NewFromFiles(fset, append(files, tests...), "github.com/forkjoin/fj/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	add := func(kind, name string) {
		if ast.IsExported(name) {
			names = append(names, kind+" "+name)
		}
	}
	values := func(vs []*doc.Value, kind string) {
		for _, v := range vs {
			for _, n := range v.Names {
				add(kind, n)
			}
		}
	}
	values(d.Consts, "const")
	values(d.Vars, "var")
	for _, f := range d.Funcs {
		add("func", f.Name)
	}
	for _, ty := range d.Types {
		add("type", ty.Name)
		values(ty.Consts, "const")
		values(ty.Vars, "var")
		for _, f := range ty.Funcs {
			add("func", f.Name)
		}
		for _, m := range ty.Methods {
			if ast.IsExported(ty.Name) {
				add("method", ty.Name+"."+m.Name)
			}
		}
		if ast.IsExported(ty.Name) {
			for _, f := range structFields(ty.Decl) {
				add("field", ty.Name+"."+f)
			}
		}
	}
	slices.Sort(names)
	return names, d
}

// structFields returns the names of the fields of the struct type that
// decl declares, embedded ones by their type's name, or nil if it
// declares no struct: a field added to an exported struct (a counter in
// pool.Stats) is API growth too.
func structFields(decl *ast.GenDecl) []string {
	var names []string
	for _, spec := range decl.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
			if len(f.Names) == 0 {
				typ := f.Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				switch x := typ.(type) {
				case *ast.Ident:
					names = append(names, x.Name)
				case *ast.SelectorExpr:
					names = append(names, x.Sel.Name)
				case *ast.IndexExpr:
					if id, ok := x.X.(*ast.Ident); ok {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}

func TestAPIIsPinned(t *testing.T) {
	for _, pkg := range publicPackages {
		names, _ := exported(t, pkg)
		file := filepath.Join("testdata", "api", pkg+".txt")
		got := strings.Join(names, "\n") + "\n"
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run go test -run API -update . to create it)", err)
		}
		if got != string(want) {
			w := strings.Split(strings.TrimSpace(string(want)), "\n")
			for _, n := range names {
				if !slices.Contains(w, n) {
					t.Errorf("package %s exports %s, which %s does not pin", pkg, n, file)
				}
			}
			for _, n := range w {
				if !slices.Contains(names, n) {
					t.Errorf("package %s no longer exports %s, which %s pins", pkg, n, file)
				}
			}
		}
	}
}

// Every exported function, type and method has an Example, found by go
// doc's rules (ExampleF, ExampleT, ExampleT_M, with or without a suffix).
func TestEveryExportedNameHasAnExample(t *testing.T) {
	for _, pkg := range publicPackages {
		_, d := exported(t, pkg)
		has := func(ex []*doc.Example) bool { return len(ex) > 0 }
		for _, f := range d.Funcs {
			if ast.IsExported(f.Name) && !has(f.Examples) {
				t.Errorf("%s.%s has no Example", pkg, f.Name)
			}
		}
		for _, ty := range d.Types {
			if !ast.IsExported(ty.Name) {
				continue
			}
			if !has(ty.Examples) {
				t.Errorf("%s.%s has no Example", pkg, ty.Name)
			}
			for _, f := range ty.Funcs {
				if ast.IsExported(f.Name) && !has(f.Examples) {
					t.Errorf("%s.%s has no Example", pkg, f.Name)
				}
			}
			for _, m := range ty.Methods {
				if ast.IsExported(m.Name) && !has(m.Examples) {
					t.Errorf("%s.%s.%s has no Example", pkg, ty.Name, m.Name)
				}
			}
		}
	}
}

// What go doc shows users never mentions the module's internal packages:
// no declaration of an exported name refers to one.
func TestDocsLinkNothingInternal(t *testing.T) {
	for _, pkg := range publicPackages {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, pkg, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				internal := map[string]bool{}
				for _, imp := range f.Imports {
					if path := strings.Trim(imp.Path.Value, `"`); strings.Contains(path, "/internal/") {
						name := path[strings.LastIndex(path, "/")+1:]
						if imp.Name != nil {
							name = imp.Name.Name
						}
						internal[name] = true
					}
				}
				for _, decl := range f.Decls {
					checkDecl(t, fset, pkg, decl, internal)
				}
			}
		}
	}
}

// checkDecl reports an exported declaration whose visible part (a
// signature, an exported field, an alias or a defined type's underlying
// type) names an internal package.
func checkDecl(t *testing.T, fset *token.FileSet, pkg string, decl ast.Decl, internal map[string]bool) {
	mentions := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return
		}
		if d.Recv != nil {
			recv := d.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			if ix, ok := recv.(*ast.IndexExpr); ok {
				recv = ix.X
			}
			if ix, ok := recv.(*ast.IndexListExpr); ok {
				recv = ix.X
			}
			if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
				return
			}
		}
		if mentions(d.Type) {
			t.Errorf("%s: %s's signature names an internal package", fset.Position(d.Pos()), d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if !s.Name.IsExported() {
					continue
				}
				if st, ok := s.Type.(*ast.StructType); ok {
					for _, fld := range st.Fields.List {
						for _, n := range fld.Names {
							if n.IsExported() && mentions(fld.Type) {
								t.Errorf("%s: field %s.%s names an internal package", fset.Position(fld.Pos()), s.Name.Name, n.Name)
							}
						}
					}
					continue
				}
				if mentions(s.Type) {
					t.Errorf("%s: type %s is declared with an internal package's type", fset.Position(s.Pos()), s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && s.Type != nil && mentions(s.Type) {
						t.Errorf("%s: %s has an internal package's type", fset.Position(n.Pos()), n.Name)
					}
				}
			}
		}
	}
}

// Nor does the prose go doc shows (the package doc, and the doc comments of
// exported names and of exported fields): design notes under internal/ are
// reached through docs/how-it-works.md, which a user reading go doc has no
// way to open from there.
func TestDocProseNamesNothingInternal(t *testing.T) {
	for _, pkg := range publicPackages {
		_, d := exported(t, pkg)
		check := func(what, text string) {
			if strings.Contains(text, "internal/") {
				t.Errorf("%s: the doc of %s mentions %q", pkg, what, line(text, "internal/"))
			}
		}
		fields := func(what string, decl *ast.GenDecl) {
			ast.Inspect(decl, func(n ast.Node) bool {
				if f, ok := n.(*ast.Field); ok {
					check(what+" (a field)", f.Doc.Text()+f.Comment.Text())
				}
				return true
			})
		}
		check("package "+d.Name, d.Doc)
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				check(strings.Join(v.Names, ", "), v.Doc)
			}
		}
		funcs := func(fs []*doc.Func) {
			for _, f := range fs {
				check(f.Name, f.Doc)
			}
		}
		values(d.Consts)
		values(d.Vars)
		funcs(d.Funcs)
		for _, ty := range d.Types {
			check(ty.Name, ty.Doc)
			fields(ty.Name, ty.Decl)
			values(ty.Consts)
			values(ty.Vars)
			funcs(ty.Funcs)
			funcs(ty.Methods)
		}
	}
}

// line returns the line of text that contains s.
func line(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
