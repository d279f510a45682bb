package fjvet

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
)

// checkLocks reports a sync.Mutex or RWMutex locked in a task and still
// held when the task makes an fj call that waits (a join, a loop, a task
// block, Run): while it waits, its worker runs other tasks, and one that
// locks the same mutex blocks the worker the waiting task needs back.
// A short critical section (Lock, plain code, Unlock) is not reported.
//
// The walk follows the statements in order: a branch that ends the
// function (return, panic) releases nothing for what follows; one that
// falls through carries its locks on. It does not follow calls.
func (c *checker) checkLocks(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil && firstParamIsWorker(funcSig(c.info, n)) {
				body = n.Body
			}
		case *ast.FuncLit:
			if li := c.lits[n]; li != nil && li.kind == litTask {
				body = n.Body
			}
		}
		if body != nil {
			lw := &lockWalker{c: c, reported: map[token.Pos]bool{}}
			lw.stmts(body.List, held{})
		}
		return true
	})
}

// held maps a mutex, as written (mu, s.mu), to where it was locked.
type held map[string]token.Pos

type lockWalker struct {
	c        *checker
	reported map[token.Pos]bool
}

// stmts walks a statement list from the locks held at its start, and
// returns the locks held at its end and whether control can reach it.
func (lw *lockWalker) stmts(list []ast.Stmt, h held) (held, bool) {
	for _, s := range list {
		var falls bool
		h, falls = lw.stmt(s, h)
		if !falls {
			return h, false
		}
	}
	return h, true
}

func union(hs ...held) held {
	out := held{}
	for _, h := range hs {
		maps.Copy(out, h)
	}
	return out
}

func (lw *lockWalker) stmt(s ast.Stmt, h held) (held, bool) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		return lw.stmts(s.List, h)
	case *ast.LabeledStmt:
		return lw.stmt(s.Stmt, h)
	case *ast.ReturnStmt:
		lw.exprs(h, s.Results...)
		return h, false
	case *ast.BranchStmt:
		return h, s.Tok == token.FALLTHROUGH
	case *ast.DeferStmt, *ast.GoStmt:
		// A deferred Unlock runs at the end: the lock stays held.
		return h, true
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" {
				if _, builtin := lw.c.info.Uses[id].(*types.Builtin); builtin {
					return h, false
				}
			}
		}
		return lw.exprs(h, s.X), true
	case *ast.AssignStmt:
		return lw.exprs(h, append(slices.Clip(s.Lhs), s.Rhs...)...), true
	case *ast.DeclStmt, *ast.SendStmt, *ast.IncDecStmt:
		return lw.node(h, s), true
	case *ast.IfStmt:
		h, _ = lw.stmt(s.Init, h)
		h = lw.exprs(h, s.Cond)
		th, tf := lw.stmts(s.Body.List, clone(h))
		eh, ef := h, true
		if s.Else != nil {
			eh, ef = lw.stmt(s.Else, clone(h))
		}
		var outs []held
		if tf {
			outs = append(outs, th)
		}
		if ef {
			outs = append(outs, eh)
		}
		return union(outs...), tf || ef
	case *ast.ForStmt:
		h, _ = lw.stmt(s.Init, h)
		h = lw.exprs(h, s.Cond)
		bh, _ := lw.stmts(s.Body.List, clone(h))
		return union(h, bh), true
	case *ast.RangeStmt:
		h = lw.exprs(h, s.X)
		bh, _ := lw.stmts(s.Body.List, clone(h))
		return union(h, bh), true
	case *ast.SwitchStmt:
		h, _ = lw.stmt(s.Init, h)
		h = lw.exprs(h, s.Tag)
		return lw.clauses(s.Body, h)
	case *ast.TypeSwitchStmt:
		h, _ = lw.stmt(s.Init, h)
		return lw.clauses(s.Body, h)
	case *ast.SelectStmt:
		return lw.clauses(s.Body, h)
	}
	return h, true
}

// clauses walks the clauses of a switch or select: what any of them
// leaves held is held after it, and without a default what was held
// before it too.
func (lw *lockWalker) clauses(body *ast.BlockStmt, h held) (held, bool) {
	outs := []held{}
	def := false
	falls := false
	for _, cl := range body.List {
		var list []ast.Stmt
		switch cl := cl.(type) {
		case *ast.CaseClause:
			def = def || cl.List == nil
			list = cl.Body
		case *ast.CommClause:
			def = def || cl.Comm == nil
			list = cl.Body
		}
		ch, cf := lw.stmts(list, clone(h))
		if cf {
			outs = append(outs, ch)
			falls = true
		}
	}
	if !def {
		outs = append(outs, h)
		falls = true
	}
	return union(outs...), falls
}

func clone(h held) held { return maps.Clone(h) }

// exprs walks expressions: locks, unlocks and fj calls, in order of
// appearance (the order of evaluation, for the cases that matter).
func (lw *lockWalker) exprs(h held, es ...ast.Expr) held {
	for _, e := range es {
		if e != nil {
			h = lw.node(h, e)
		}
	}
	return h
}

func (lw *lockWalker) node(h held, n ast.Node) held {
	c := lw.c
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false // a task of its own, or code that runs later
		case *ast.CallExpr:
			fn := calleeFunc(c.info, m)
			if fn == nil {
				return true
			}
			switch fn.FullName() {
			case "(*sync.Mutex).Lock", "(*sync.RWMutex).Lock", "(*sync.RWMutex).RLock":
				h[mutexKey(m.Fun)] = m.Pos()
				return true
			case "(*sync.Mutex).Unlock", "(*sync.RWMutex).Unlock", "(*sync.RWMutex).RUnlock":
				delete(h, mutexKey(m.Fun))
				return true
			}
			if isSection(fn) && len(m.Args) == 1 {
				// pool.Blocking(mu.Lock) or pool.Blocking(func() { mu.Lock() }):
				// a lock taken in a section is held after it.
				lw.sectionLocks(h, m.Args[0])
				return false
			}
			if len(h) > 0 && (isFJ(fn.Pkg()) && waits(fn) || !isFJ(fn.Pkg()) && passesWorker(c.info, m) && c.helperWaits(fn)) {
				for mu, at := range h {
					if lw.reported[at] {
						continue
					}
					lw.reported[at] = true
					what := displayName(fn)
					if !isFJ(fn.Pkg()) {
						what = fn.Name() + " (given the worker, it joins)"
					}
					c.report(ruleLock, at, at, nil,
						"%s is locked across %s at line %d: while the call waits, this worker runs other tasks, and one that locks %s holds the worker this task needs back; unlock before the call (or hold %s only in short critical sections with no fj call inside)",
						mu, what, c.pass.Fset.Position(m.Pos()).Line, mu, mu)
				}
			}
		}
		return true
	})
	return h
}

// sectionLocks notes the locks taken by a section's function.
func (lw *lockWalker) sectionLocks(h held, f ast.Expr) {
	c := lw.c
	switch f := ast.Unparen(f).(type) {
	case *ast.SelectorExpr:
		if fn, ok := c.info.Uses[f.Sel].(*types.Func); ok {
			switch fn.FullName() {
			case "(*sync.Mutex).Lock", "(*sync.RWMutex).Lock", "(*sync.RWMutex).RLock":
				h[mutexKey(f)] = f.Pos()
			}
		}
	case *ast.FuncLit:
		lw.stmts(f.Body.List, h)
	}
}

// mutexKey names the mutex of a Lock or Unlock call's function: mu for
// mu.Lock, s.mu for s.mu.Unlock.
func mutexKey(fun ast.Expr) string {
	if sel, ok := ast.Unparen(fun).(*ast.SelectorExpr); ok {
		x := ast.Unparen(sel.X)
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
			x = u.X
		}
		return types.ExprString(x)
	}
	return types.ExprString(fun)
}

// helperWaits reports whether a function of the package, given a
// worker, makes an fj call that waits: directly, or through other such
// helpers. A function of another package is not seen, and not assumed
// to wait.
func (c *checker) helperWaits(fn *types.Func) bool {
	d := c.decls[fn.Origin()]
	if d == nil || d.Body == nil {
		return false
	}
	if w, ok := c.waiting[d]; ok {
		return w // false while d's own answer is being worked out: recursion adds nothing
	}
	c.waiting[d] = false
	found := false
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if g := calleeFunc(c.info, call); g != nil {
			found = isFJ(g.Pkg()) && waits(g) || g.Pkg() == c.pass.Pkg && passesWorker(c.info, call) && c.helperWaits(g)
		}
		return !found
	})
	c.waiting[d] = found
	return found
}

// passesWorker reports whether a call gives a *pool.Worker to a function
// (which may fork and join with it).
func passesWorker(info *types.Info, call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if isWorker(info.TypeOf(a)) {
			return true
		}
	}
	return false
}
