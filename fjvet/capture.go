package fjvet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// captureKey is one captured worker: a variable used in a function that
// must use its own.
type captureKey struct {
	boundary ast.Node
	v        *types.Var
}

// capture gathers the uses of one captured worker and the context they
// are in.
type capture struct {
	ctx  *context
	uses []*ast.Ident
}

// checkCapture notes a use of a *pool.Worker variable declared outside
// the innermost function that must use its own worker (see context).
// Writes are not uses: storing a worker is how a test keeps one to show
// that it fails afterwards.
func (c *checker) checkCapture(id *ast.Ident, ctx *context) {
	if ctx.boundary == nil || c.assigned[id] || c.compared[id] {
		return
	}
	v, ok := c.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || !isWorker(v.Type()) || contains(ctx.boundary, v.Pos()) {
		return
	}
	if li := ctx.lit; li != nil && li.runner == v && runsInline(li) {
		return
	}
	k := captureKey{ctx.boundary, v}
	cp := c.captured[k]
	if cp == nil {
		cp = &capture{ctx: ctx}
		c.captured[k] = cp
		c.order = append(c.order, k)
	}
	cp.uses = append(cp.uses, id)
}

// runsInline reports whether an fj call runs a literal on the calling
// goroutine with the worker it was given, as documented: a task block's
// body, Invoke's and Region's f, Worker.Run's f, Join's first half. In
// it, that worker is the literal's own (Define's body reaches it as
// b.Worker()), and using it is correct.
func runsInline(li *litInfo) bool {
	fn := li.callee
	switch {
	case fn == nil:
		return false
	case is(fn, taskblockPath, "Define"), is(fn, taskblockPath, "DefineErr"),
		is(fn, forkjoinPath, "Invoke"), is(fn, poolPath, "Region"), is(fn, poolPath, "Worker.Run"):
		return true
	case is(fn, forkjoinPath, "Join"):
		return li.arg == 1
	}
	return false
}

// reportCaptures reports each captured worker once, at its first use,
// with a fix that covers every use in that function.
func (c *checker) reportCaptures() {
	for _, k := range c.order {
		cp := c.captured[k]
		id := cp.uses[0]
		name := k.v.Name()
		switch cp.ctx.kind {
		case ctxSection:
			c.report(ruleCaptured, id.Pos(), id.End(), nil,
				"%s, the task's *pool.Worker, is used inside a blocking section (%s), which holds no worker: fj panics; use it after the section returns", name, displayName(cp.ctx.lit.callee))
		case ctxGo:
			c.report(ruleCaptured, id.Pos(), id.End(), nil,
				"%s, a *pool.Worker, is used in a goroutine started with go: a worker belongs to the goroutine of the task it was given to; start the work with forkjoin.Spawn or b.Run instead", name)
		case ctxTask:
			var fixes []analysis.SuggestedFix
			if lit, ok := k.boundary.(*ast.FuncLit); ok {
				if fix := c.captureFix(lit, k.v, cp.uses); fix != nil {
					fixes = []analysis.SuggestedFix{*fix}
				}
			}
			whose := "the *pool.Worker of an enclosing task"
			if k.v.Parent() == k.v.Pkg().Scope() {
				whose = "a package-level *pool.Worker"
			}
			c.report(ruleCaptured, id.Pos(), id.End(), fixes,
				"%s is %s, used in %s, which may run on another worker: %s", name, whose, c.taskName(cp.ctx), c.ownWorker(k.boundary))
		default:
			c.report(ruleCaptured, id.Pos(), id.End(), nil,
				"%s, a *pool.Worker, is used in a function that %s runs on a goroutine of the pool's own, outside any task: a worker belongs to the task it was given to", name, displayName(cp.ctx.lit.callee))
		}
	}
}

// taskName names the function a captured worker is used in.
func (c *checker) taskName(ctx *context) string {
	switch b := ctx.boundary.(type) {
	case *ast.FuncDecl:
		return b.Name.Name
	case *ast.FuncLit:
		if ctx.lit != nil && ctx.lit.callee != nil {
			return "a function run by " + displayName(ctx.lit.callee)
		}
		return "a function that receives a worker of its own"
	}
	return "a task"
}

// ownWorker says what to use instead of a captured worker.
func (c *checker) ownWorker(boundary ast.Node) string {
	sig := funcSig(c.info, boundary)
	switch {
	case firstParamIsWorker(sig):
		return "use the worker it receives (its first parameter)"
	case sig != nil && sig.Params().Len() > 0 && isBlock(sig.Params().At(0).Type()):
		return "use the block's worker, b.Worker(), or start the work as a task of the block"
	}
	return "a worker must be used only by the task it was given to; pass the data, not the worker"
}

// captureFix renames the captured worker to the literal's own: its first
// parameter (named w if it had no name), or the block's b.Worker() in a
// task block's body.
func (c *checker) captureFix(lit *ast.FuncLit, v *types.Var, uses []*ast.Ident) *analysis.SuggestedFix {
	sig := funcSig(c.info, lit)
	params := lit.Type.Params.List
	if sig == nil || sig.Params().Len() == 0 || len(params) == 0 {
		return nil
	}
	worker := firstParamIsWorker(sig)
	if !worker && !isBlock(sig.Params().At(0).Type()) {
		return nil
	}
	candidates := []string{v.Name(), "w"}
	if !worker {
		candidates = []string{"b", "blk"}
	}
	var edits []analysis.TextEdit
	first := params[0]
	name := ""
	if len(first.Names) > 0 && first.Names[0].Name != "_" {
		name = first.Names[0].Name
	} else {
		for _, n := range candidates {
			if !c.clash(lit, n, v) {
				name = n
				break
			}
		}
		if name == "" {
			return nil
		}
		if len(first.Names) > 0 {
			edits = append(edits, analysis.TextEdit{Pos: first.Names[0].Pos(), End: first.Names[0].End(), NewText: []byte(name)})
		} else {
			// Parameters are all named or none are.
			for i, f := range params {
				n := "_"
				if i == 0 {
					n = name
				}
				edits = append(edits, analysis.TextEdit{Pos: f.Type.Pos(), End: f.Type.Pos(), NewText: []byte(n + " ")})
			}
		}
	}
	repl := name
	if !worker {
		repl = name + ".Worker()"
	}
	for _, u := range uses {
		if u.Name != repl {
			edits = append(edits, analysis.TextEdit{Pos: u.Pos(), End: u.End(), NewText: []byte(repl)})
		}
	}
	if len(edits) == 0 {
		return nil
	}
	return &analysis.SuggestedFix{Message: "Use the function's own worker", TextEdits: edits}
}

// clash reports whether naming lit's first parameter name would change
// what an identifier in it refers to (other than v, which it should) or
// collide with a declaration of the function's own scope.
func (c *checker) clash(lit *ast.FuncLit, name string, v *types.Var) bool {
	if s := c.info.Scopes[lit.Type]; s != nil && s.Lookup(name) != nil {
		return true
	}
	bad := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			if obj := c.info.Uses[id]; obj != nil && obj != types.Object(v) && !contains(lit, obj.Pos()) {
				bad = true
			}
		}
		return !bad
	})
	return bad
}
