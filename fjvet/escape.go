package fjvet

import (
	"go/ast"
	"go/token"
	"go/types"
)

// checkEscapes reports a *taskblock.Block that escapes the function it
// was given to (a Define body, or a helper that receives the block):
// stored in a variable, field or element declared outside it, sent on a
// channel, returned, or used by a goroutine started with go. A block
// lives until its Define returns; one kept longer panics when used, and
// one used by another goroutine panics at once (it runs no task of the
// pool). Passing the block to a function, and using it in the block's
// tasks (b.Run from a task is N4411), is how blocks are meant to be used
// and is not reported.
func (c *checker) checkEscapes(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		var ft *ast.FuncType
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			ft, body = n.Type, n.Body
		case *ast.FuncLit:
			ft, body = n.Type, n.Body
		}
		if body == nil {
			return true
		}
		blocks := map[types.Object]bool{}
		for _, fld := range ft.Params.List {
			for _, id := range fld.Names {
				if obj := c.info.Defs[id]; obj != nil && isBlock(obj.Type()) {
					blocks[obj] = true
				}
			}
		}
		if len(blocks) > 0 {
			c.escapes(n, body, blocks)
		}
		return true
	})
}

// escapes looks for the ways the blocks (the function's parameters, and
// local variables that copy them) leave fn.
func (c *checker) escapes(fn ast.Node, body *ast.BlockStmt, blocks map[types.Object]bool) {
	// holds reports the first block variable whose value e carries: the
	// variable itself, or a composite value built from it. A call's
	// result (b.Worker(), helper(b)) and a method value are not the block.
	var holds func(e ast.Expr) *ast.Ident
	holds = func(e ast.Expr) *ast.Ident {
		var found *ast.Ident
		ast.Inspect(e, func(n ast.Node) bool {
			if found != nil {
				return false
			}
			switch n := n.(type) {
			case *ast.Ident:
				if blocks[c.info.Uses[n]] {
					found = n
				}
			case *ast.SelectorExpr:
				return false // b.Run, b.Worker: not the block itself
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && id.Name == "append" {
					for _, a := range n.Args[1:] {
						if found = holds(a); found != nil {
							return false
						}
					}
				}
				return false
			case *ast.FuncLit:
				// A closure that uses the block carries it.
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && blocks[c.info.Uses[id]] && found == nil {
						found = id
					}
					return found == nil
				})
				return false
			}
			return true
		})
		return found
	}
	outside := func(obj types.Object) bool {
		return obj != nil && !contains(fn, obj.Pos())
	}
	// root returns the variable at the root of an assignment's target:
	// s in s.f, m in m[k], p in *p.
	var root func(e ast.Expr) *ast.Ident
	root = func(e ast.Expr) *ast.Ident {
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			return e
		case *ast.SelectorExpr:
			return root(e.X)
		case *ast.IndexExpr:
			return root(e.X)
		case *ast.StarExpr:
			return root(e.X)
		}
		return nil
	}
	report := func(id *ast.Ident, format string, args ...any) {
		c.report(ruleEscape, id.Pos(), id.End(), nil, "the *taskblock.Block %s "+format+": a block may be used only by its body and its tasks, until Define returns (later, and from other goroutines, it panics); pass what the work needs, and start the work with b.Run", append([]any{id.Name}, args...)...)
	}
	var visit func(n ast.Node, top bool)
	visit = func(n ast.Node, top bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				if m != n {
					visit(m.Body, false)
					return false
				}
			case *ast.AssignStmt:
				for i, r := range m.Rhs {
					if len(m.Lhs) != len(m.Rhs) {
						break
					}
					id := holds(r)
					if id == nil {
						continue
					}
					t := root(m.Lhs[i])
					if t == nil || t.Name == "_" {
						continue
					}
					obj := c.info.ObjectOf(t)
					if outside(obj) {
						report(id, "is stored in %s, declared outside %s", types.ExprString(m.Lhs[i]), funcName(fn))
					} else if l, ok := ast.Unparen(m.Lhs[i]).(*ast.Ident); ok && m.Tok == token.DEFINE || ok && isBlock(c.info.TypeOf(l)) {
						blocks[obj] = true // a local copy
					}
				}
			case *ast.ValueSpec:
				for i, v := range m.Values {
					if i < len(m.Names) && holds(v) != nil {
						if obj := c.info.Defs[m.Names[i]]; obj != nil {
							blocks[obj] = true
						}
					}
				}
			case *ast.SendStmt:
				if id := holds(m.Value); id != nil {
					report(id, "is sent on a channel")
				}
			case *ast.ReturnStmt:
				if top {
					for _, r := range m.Results {
						if id := holds(r); id != nil {
							report(id, "is returned by %s", funcName(fn))
						}
					}
				}
			case *ast.GoStmt:
				ast.Inspect(m.Call, func(g ast.Node) bool {
					if id, ok := g.(*ast.Ident); ok && blocks[c.info.Uses[id]] {
						report(id, "is used by a goroutine started with go")
						return false
					}
					return true
				})
				return false
			}
			return true
		})
	}
	visit(body, true)
}

// funcName names a function for messages.
func funcName(fn ast.Node) string {
	if d, ok := fn.(*ast.FuncDecl); ok {
		return d.Name.Name
	}
	return "the function it was given to"
}
