package fjvet

import (
	"go/ast"
	"go/token"
	"go/types"
)

// checkSpawns reports a forkjoin.Spawn whose Task is never joined: its
// result is dropped, or kept in a local variable that nothing reads. A
// Task must be joined exactly once, by its spawner, before the spawner
// returns; unjoined, its result and its panic are lost, and the spawner
// may return while it still runs. A Task that goes anywhere else (a
// slice, a function, a field) is assumed joined there.
func (c *checker) checkSpawns(f *ast.File) {
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		defer func() { stack = append(stack, n) }()
		call, ok := n.(*ast.CallExpr)
		if !ok || !is(fjCallee(c.info, call), forkjoinPath, "Spawn") || len(stack) == 0 {
			return true
		}
		msg := "the Task of forkjoin.Spawn is %s: a Task must be joined exactly once (t.Join(w)) by the task that spawned it, before it returns; unjoined, its result and its panic are lost (use forkjoin.Fork for a result that may be left unread)"
		switch p := stack[len(stack)-1].(type) {
		case *ast.ExprStmt:
			c.report(ruleSpawn, call.Pos(), call.End(), nil, msg, "dropped")
		case *ast.AssignStmt:
			for i, r := range p.Rhs {
				if r != call || len(p.Lhs) != len(p.Rhs) {
					continue
				}
				id, ok := p.Lhs[i].(*ast.Ident)
				if !ok {
					continue
				}
				if id.Name == "_" {
					c.report(ruleSpawn, call.Pos(), call.End(), nil, msg, "assigned to _")
				} else if obj := c.info.ObjectOf(id); obj != nil && p.Tok == token.DEFINE && c.unread(obj) {
					c.report(ruleSpawn, call.Pos(), call.End(), nil, msg, "kept in "+id.Name+", which nothing reads")
				}
			}
		case *ast.ValueSpec:
			for i, v := range p.Values {
				if v == call && i < len(p.Names) {
					if obj := c.info.Defs[p.Names[i]]; obj != nil && c.unread(obj) {
						c.report(ruleSpawn, call.Pos(), call.End(), nil, msg, "kept in "+p.Names[i].Name+", which nothing reads")
					}
				}
			}
		}
		return true
	})
}

// unread reports whether a local variable is never read: every use is
// the target of an assignment, or _ = v (which only quiets the
// compiler).
func (c *checker) unread(obj types.Object) bool {
	if v, ok := obj.(*types.Var); !ok || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	for _, id := range c.uses[obj] {
		if !c.assigned[id] && !c.blankRead[id] {
			return false
		}
	}
	return true
}
