package fjvet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// ctxKind is where code runs.
type ctxKind int

const (
	ctxPlain   ctxKind = iota // ordinary code: no rule about blocking
	ctxTask                   // a task on a worker: blocking calls belong in sections
	ctxSection                // a blocking section: may block, must not use the task's worker
	ctxGo                     // a goroutine started with go
)

// context is what the walk knows about the code it is in.
type context struct {
	kind ctxKind
	// boundary is the innermost function whose worker the code may
	// use: a literal fj runs (or a go statement starts), or a function
	// whose first parameter is a *pool.Worker; nil in ordinary code.
	// A worker declared outside it is a captured one.
	boundary ast.Node
	lit      *litInfo // the boundary's literal information, if a literal
	// taskSection: a section of a task (Close of the task's pool panics
	// there too).
	taskSection bool
	// runners are the variables the enclosing fj calls run on.
	runners []types.Object
	// quiet: a closure stored in a variable, or a literal whose caller is
	// not known. Its blocking calls are reported where it is called.
	quiet bool
}

// blockOp is a blocking operation: what it is, where, and through which
// helpers of the package a call reaches it.
type blockOp struct {
	what string
	pos  token.Pos
	via  []string
}

// summary says whether a function of the package blocks outside
// sections when called: the first blocking operation found.
type summary struct {
	op *blockOp
}

// walker walks function bodies. In summary mode (sum != nil) it looks
// only for the first blocking operation and reports nothing.
type walker struct {
	c     *checker
	stack []ast.Node
	sum   *summary
}

func (w *walker) push(n ast.Node) { w.stack = append(w.stack, n) }
func (w *walker) pop()            { w.stack = w.stack[:len(w.stack)-1] }

func (w *walker) walk(root ast.Node, ctx *context) {
	if root == nil {
		return
	}
	c := w.c
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			w.pop()
			return true
		}
		if w.sum != nil && w.sum.op != nil {
			return false // a summary needs one operation
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			if inner := c.enter(n, ctx, w.sum != nil); inner != nil {
				w.push(n)
				w.walk(n.Body, inner)
				w.pop()
			}
			return false
		case *ast.Ident:
			if w.sum == nil {
				c.checkCapture(n, ctx)
			}
		case *ast.SendStmt:
			if !c.isBufferedChan(n.Chan) {
				w.blocking(ctx, n, blockOp{what: "a channel send", pos: n.Pos()})
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				w.blocking(ctx, n, blockOp{what: "a channel receive", pos: n.Pos()})
			}
		case *ast.RangeStmt:
			if _, ok := under(c.info.TypeOf(n.X)).(*types.Chan); ok {
				w.blocking(ctx, n, blockOp{what: "a range over a channel", pos: n.Pos()})
			}
		case *ast.SelectStmt:
			w.selectStmt(n, ctx)
			return false
		case *ast.GoStmt:
			// The call runs on the new goroutine; its function value and
			// arguments are evaluated here.
			w.push(n)
			w.push(n.Call)
			for _, a := range n.Call.Args {
				if id, ok := ast.Unparen(a).(*ast.Ident); ok && w.sum == nil {
					if v, ok := c.info.Uses[id].(*types.Var); ok && !v.IsField() && isWorker(v.Type()) {
						c.report(ruleCaptured, id.Pos(), id.End(), nil,
							"%s, a *pool.Worker, is handed to a goroutine started with go: a worker belongs to the goroutine of the task it was given to; start the work with forkjoin.Spawn or b.Run instead", id.Name)
						continue
					}
				}
				w.walk(a, ctx)
			}
			switch fun := ast.Unparen(n.Call.Fun).(type) {
			case *ast.FuncLit:
				w.walk(fun, ctx)
			case *ast.SelectorExpr:
				w.walk(fun.X, ctx)
			case *ast.Ident:
			default:
				w.walk(fun, ctx)
			}
			w.pop()
			w.pop()
			return false
		case *ast.CallExpr:
			w.call(n, ctx)
		}
		w.push(n)
		return true
	})
}

// selectStmt walks a select: without a default case it blocks; its
// communications block only through it, and its clauses are walked as
// code.
func (w *walker) selectStmt(s *ast.SelectStmt, ctx *context) {
	def := false
	for _, cl := range s.Body.List {
		if cl.(*ast.CommClause).Comm == nil {
			def = true
		}
	}
	if !def {
		w.blocking(ctx, s, blockOp{what: "a select without a default", pos: s.Pos()})
	}
	w.push(s)
	defer w.pop()
	for _, cl := range s.Body.List {
		cc := cl.(*ast.CommClause)
		w.push(cc)
		switch comm := cc.Comm.(type) {
		case *ast.SendStmt:
			w.walk(comm.Chan, ctx)
			w.walk(comm.Value, ctx)
		case *ast.ExprStmt:
			if u, ok := ast.Unparen(comm.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				w.walk(u.X, ctx)
			}
		case *ast.AssignStmt:
			if u, ok := ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				w.walk(u.X, ctx)
			}
		}
		for _, st := range cc.Body {
			w.walk(st, ctx)
		}
		w.pop()
	}
}

// call checks a call: a blocking call of the standard library's table, a
// helper of the package that blocks, a local closure that blocks, Close.
func (w *walker) call(call *ast.CallExpr, ctx *context) {
	c := w.c
	switch fn := typeutil.Callee(c.info, call).(type) {
	case *types.Func:
		if what := stdBlocking(c.info, call, fn); what != "" {
			w.blocking(ctx, call, blockOp{what: what, pos: call.Pos()})
			return
		}
		if fn.Pkg() == c.pass.Pkg {
			if d := c.decls[fn.Origin()]; d != nil && d.Body != nil && !firstParamIsWorker(funcSig(c.info, d)) {
				if op := c.summaryOf(d, d.Body).op; op != nil {
					w.blocking(ctx, call, blockOp{what: op.what, pos: op.pos, via: append([]string{fn.Name()}, op.via...)})
				}
			}
		}
		if w.sum == nil && is(fn, poolPath, "Pool.Close") {
			c.checkClose(call, ctx)
		}
	case *types.Var:
		for _, lit := range c.localFuncs[fn] {
			if c.lits[lit].kind != litLocal {
				continue
			}
			if op := c.summaryOf(lit, lit.Body).op; op != nil {
				w.blocking(ctx, call, blockOp{what: op.what, pos: op.pos, via: append([]string{fn.Name()}, op.via...)})
				return
			}
		}
	}
}

// summaryOf returns whether a function of the package (a declaration or
// a local closure) blocks outside sections when called. A function in
// the middle of its own summary (recursion) counts as not blocking.
func (c *checker) summaryOf(fn ast.Node, body *ast.BlockStmt) *summary {
	if s := c.summaries[fn]; s != nil {
		return s
	}
	s := &summary{}
	c.summaries[fn] = s
	(&walker{c: c, sum: s}).walk(body, &context{kind: ctxTask})
	return s
}

// blocking handles a blocking operation: reported in a task, noted in a
// summary.
func (w *walker) blocking(ctx *context, n ast.Node, op blockOp) {
	if w.sum != nil {
		if w.sum.op == nil && ctx.kind == ctxTask {
			w.sum.op = &op
		}
		return
	}
	if ctx.kind != ctxTask || ctx.quiet {
		return
	}
	c := w.c
	what := op.what
	if len(op.via) > 0 {
		// A helper of the package that blocks: say where, and through
		// which other helpers.
		p := c.pass.Fset.Position(op.pos)
		through := ""
		if len(op.via) > 1 {
			through = "through " + strings.Join(op.via[1:], ", ") + ": "
		}
		what = fmt.Sprintf("%s, which blocks (%s%s at %s:%d)", op.via[0], through, op.what, filepath.Base(p.Filename), p.Line)
	}
	fix := "wrap it in pool.Blocking(func() { ... }) (or pool.BlockingValue)"
	if _, ok := n.(*ast.RangeStmt); ok {
		fix = "receive each value in a section, pool.Blocking(func() { v, ok = <-ch }), in a plain loop"
	}
	c.report(ruleBlocking, n.Pos(), n.Pos(), c.blockingFix(w.stack, n),
		"%s in %s: a task holds its worker while it blocks, and work queued behind it waits; %s", what, c.where(ctx), fix)
}

// where describes the task a context is in, for messages.
func (c *checker) where(ctx *context) string {
	switch b := ctx.boundary.(type) {
	case *ast.FuncDecl:
		return b.Name.Name + " (a task: its first parameter is a *pool.Worker)"
	case *ast.FuncLit:
		if ctx.lit != nil && ctx.lit.callee != nil {
			return "a function run by " + displayName(ctx.lit.callee)
		}
	}
	return "a function whose first parameter is a *pool.Worker"
}

// enter returns the context of a nested literal's body, or nil when a
// summary does not look inside it.
func (c *checker) enter(lit *ast.FuncLit, parent *context, summaryMode bool) *context {
	li := c.lits[lit]
	if li == nil {
		li = &litInfo{kind: litOpaque}
	}
	if summaryMode {
		if li.kind == litInline {
			return parent
		}
		return nil
	}
	switch li.kind {
	case litInline:
		return parent
	case litTask:
		return &context{kind: ctxTask, boundary: lit, lit: li, runners: append(slices.Clip(parent.runners), li.runner)}
	case litSection:
		return &context{kind: ctxSection, boundary: lit, lit: li, runners: parent.runners,
			taskSection: parent.kind == ctxTask || parent.taskSection}
	case litGo:
		return &context{kind: ctxGo, boundary: lit, lit: li}
	case litOther:
		return &context{kind: ctxPlain, boundary: lit, lit: li}
	}
	// A closure stored in a variable, or a literal stored or returned: it
	// runs where it is called, in the same goroutine. An iter.Seq runs in
	// the task that pulls it, with its worker; its waits are the puller's,
	// which parallel.ForSeq documents (a channel worklist fed by the
	// bodies), and are not reported.
	inner := *parent
	inner.quiet = true
	return &inner
}

// isBufferedChan reports whether a send's channel is a local variable
// made with a capacity, every time it is assigned: such a send is how
// tasks hand results out, and blocks only when the buffer is too small.
func (c *checker) isBufferedChan(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	obj := c.info.Uses[id]
	return obj != nil && c.buffered[obj]
}

// checkClose reports Close of a pool from inside one of its tasks, or
// from a task at all (see the package documentation), and Close of
// pool.Default().
func (c *checker) checkClose(call *ast.CallExpr, ctx *context) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	recv := ast.Unparen(sel.X)
	same := false
	if rc, ok := recv.(*ast.CallExpr); ok {
		fn := calleeFunc(c.info, rc)
		if is(fn, poolPath, "Default") {
			c.report(ruleClose, call.Pos(), call.End(), nil, "Close of pool.Default() panics: the process-wide pool lives as long as the process; use a pool of your own (pool.New) to close one")
			return
		}
		same = is(fn, poolPath, "Worker.Pool")
	}
	if id, ok := recv.(*ast.Ident); ok {
		same = slices.Contains(ctx.runners, c.info.Uses[id])
	}
	name := types.ExprString(recv)
	switch {
	case ctx.kind == ctxTask && same:
		c.report(ruleClose, call.Pos(), call.End(), nil,
			"%s.Close() from inside a task of %s panics (Close waits for the pool's tasks, this one included): close the pool where it was created, once the call that runs the task has returned", name, name)
	case ctx.kind == ctxTask:
		c.report(ruleClose, call.Pos(), call.End(), nil,
			"%s.Close() from inside a task: if %s runs this task, Close panics; if it is another pool, Close waits for that pool's work and holds this worker meanwhile: close a pool where it was created, or call Close in pool.Blocking", name, name)
	case ctx.kind == ctxSection && ctx.taskSection && same:
		c.report(ruleClose, call.Pos(), call.End(), nil,
			"%s.Close() from inside a blocking section of a task of %s panics, as from the task itself: close the pool where it was created", name, name)
	}
}
