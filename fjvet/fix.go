package fjvet

import (
	"bytes"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// blockingFix wraps the statement that holds a blocking operation in
// pool.Blocking: x := <-ch becomes var x T; pool.Blocking(func() { x = <-ch }).
// It offers nothing where the wrap would change the program: the
// statement uses a worker or makes an fj call (neither is allowed in a
// section), leaves the statement (return, break, continue, goto), or is
// not a simple statement of a block (an if's condition, a range).
func (c *checker) blockingFix(stack []ast.Node, n ast.Node) []analysis.SuggestedFix {
	path := append(stack[:len(stack):len(stack)], n)
	var stmt ast.Stmt
	for i := len(path) - 1; i > 0; i-- {
		if _, ok := path[i].(*ast.FuncLit); ok {
			return nil
		}
		s, ok := path[i].(ast.Stmt)
		if !ok {
			continue
		}
		switch path[i-1].(type) {
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
			stmt = s
		}
		if stmt != nil {
			break
		}
		if _, ok := s.(*ast.ExprStmt); !ok {
			return nil // the operation is in an if, a for, a switch ...: no mechanical wrap
		}
	}
	var assign *ast.AssignStmt
	switch s := stmt.(type) {
	case *ast.ExprStmt, *ast.SendStmt:
	case *ast.SelectStmt:
		if s != n {
			return nil
		}
	case *ast.AssignStmt:
		assign = s
	default:
		return nil
	}
	if !c.wrappable(stmt) {
		return nil
	}
	poolName := importName(c.file, poolPath)
	if poolName == "" {
		return nil
	}
	src, tf := c.source(stmt.Pos())
	if src == nil {
		return nil
	}
	start, end := tf.Offset(stmt.Pos()), tf.Offset(stmt.End())
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	indent := string(src[lineStart:start])
	if strings.TrimSpace(indent) != "" {
		return nil
	}
	text := string(src[start:end])
	var decls []string
	if assign != nil && assign.Tok == token.DEFINE {
		// The new variables are declared before the section and
		// assigned inside it.
		for _, l := range assign.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || id.Name == "_" || c.info.Defs[id] == nil {
				continue
			}
			t, ok := c.typeString(c.info.Defs[id].Type())
			if !ok {
				return nil
			}
			decls = append(decls, "var "+id.Name+" "+t)
		}
		at := tf.Offset(assign.TokPos) - start
		text = text[:at] + "=" + text[at+2:]
	}
	var b strings.Builder
	for _, d := range decls {
		b.WriteString(d + "\n" + indent)
	}
	if strings.Contains(text, "\n") {
		b.WriteString(poolName + ".Blocking(func() {\n" + indent + "\t")
		b.WriteString(strings.ReplaceAll(text, "\n", "\n\t"))
		b.WriteString("\n" + indent + "})")
	} else {
		b.WriteString(poolName + ".Blocking(func() { " + text + " })")
	}
	return []analysis.SuggestedFix{{
		Message:   "Wrap the statement in " + poolName + ".Blocking",
		TextEdits: []analysis.TextEdit{{Pos: stmt.Pos(), End: stmt.End(), NewText: []byte(b.String())}},
	}}
}

// wrappable reports whether a statement means the same inside a
// function literal run by pool.Blocking: it uses no worker, makes no fj
// call, and transfers no control out of itself.
func (c *checker) wrappable(stmt ast.Stmt) bool {
	ok := true
	var visit func(n ast.Node, breakable, loop bool) bool
	visit = func(n ast.Node, breakable, loop bool) bool {
		ast.Inspect(n, func(m ast.Node) bool {
			if !ok || m == nil || m == n {
				return ok
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false // its own returns and workers
			case *ast.ReturnStmt:
				ok = false
			case *ast.BranchStmt:
				switch {
				case m.Label != nil, m.Tok == token.GOTO, m.Tok == token.FALLTHROUGH:
					ok = false
				case m.Tok == token.BREAK && !breakable, m.Tok == token.CONTINUE && !loop:
					ok = false
				}
			case *ast.ForStmt, *ast.RangeStmt:
				visit(m, true, true)
				return false
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				visit(m, true, loop)
				return false
			case *ast.Ident:
				if v, isVar := c.info.Uses[m].(*types.Var); isVar && isWorker(v.Type()) {
					ok = false
				}
			case *ast.CallExpr:
				if fjCallee(c.info, m) != nil {
					ok = false
				}
			}
			return ok
		})
		return ok
	}
	_, sel := stmt.(*ast.SelectStmt)
	return visit(stmt, sel, false)
}

// source returns the contents of the file that holds pos.
func (c *checker) source(pos token.Pos) ([]byte, *token.File) {
	tf := c.pass.Fset.File(pos)
	if tf == nil {
		return nil, nil
	}
	read := c.pass.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	src, err := read(tf.Name())
	if err != nil || len(src) != tf.Size() {
		return nil, nil
	}
	return src, tf
}

// typeString writes t as the current file can name it, or reports that
// it cannot (a package it does not import).
func (c *checker) typeString(t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == c.pass.Pkg {
			return ""
		}
		n := importName(c.file, p.Path())
		if n == "" {
			ok = false
		}
		return n
	})
	return s, ok
}

// importName returns the name under which file imports path, or "".
func importName(file *ast.File, path string) string {
	for _, im := range file.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || p != path {
			continue
		}
		if im.Name != nil {
			if im.Name.Name == "_" || im.Name.Name == "." {
				return ""
			}
			return im.Name.Name
		}
		return p[strings.LastIndexByte(p, '/')+1:]
	}
	return ""
}
