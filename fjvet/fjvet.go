package fjvet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// Analyzer reports misuse of fj that the compiler accepts: a captured
// *pool.Worker, a blocking call in a task outside pool.Blocking, a lock
// held across a join, a task block that escapes its Define, a Close from
// inside a pool's task, and a Spawn never joined. See the package
// documentation for each rule and what it cannot see.
var Analyzer = &analysis.Analyzer{
	Name: "fjvet",
	Doc:  doc,
	URL:  "https://pkg.go.dev/github.com/forkjoin/fj/fjvet",
	Run:  run,
}

const doc = `report misuse of the fj fork/join library

fjvet reports a *pool.Worker captured from an enclosing task, a blocking
call in a task outside pool.Blocking, a lock held across a join, a task
block that escapes its Define, Close of a pool from inside its tasks and
a Spawn that is never joined. A finding is silenced, with a reason, by a
comment "//fjvet:ignore <rule> <reason>" at the end of its line or alone
on the line above, and a file's by "//fjvet:file-ignore <rule> <reason>".`

// The rules, as they appear in messages, in the Category of each
// analysis.Diagnostic and in //fjvet:ignore comments.
const (
	ruleCaptured = "captured-worker"
	ruleBlocking = "blocking"
	ruleLock     = "lock-across-join"
	ruleEscape   = "escaping-block"
	ruleClose    = "close-inside"
	ruleSpawn    = "unjoined-spawn"
)

var rules = []string{ruleCaptured, ruleBlocking, ruleLock, ruleEscape, ruleClose, ruleSpawn}

// litKind says how a function literal runs, which decides what may be
// used and done in it.
type litKind int

const (
	litInline  litKind = iota // runs where it is written (called, deferred, given to other code)
	litTask                   // run by fj on a worker: a task, a loop body, a block body, a comparator
	litSection                // run by pool.Blocking: holds no worker
	litGo                     // run by a go statement: a goroutine of its own
	litOther                  // run by fj on a goroutine of its own: a stall handler
	litSeq                    // an iter.Seq fj pulls in the calling task, as a range loop would
	litLocal                  // stored in a local variable and called from several places
	litOpaque                 // stored or returned: where it runs is not known
)

// litInfo is what the analyzer knows about a function literal.
type litInfo struct {
	kind   litKind
	callee *types.Func   // the fj function it is handed to, if any
	call   *ast.CallExpr // that call
	runner types.Object  // the call's Runner (first argument or receiver), if a variable
	arg    int           // the literal's place among the call's arguments
}

// checker holds one package's analysis.
type checker struct {
	pass  *analysis.Pass
	info  *types.Info
	lits  map[*ast.FuncLit]*litInfo
	decls map[*types.Func]*ast.FuncDecl
	// localFuncs maps a local variable to the literals assigned to it.
	localFuncs map[*types.Var][]*ast.FuncLit
	// assigned marks identifiers written by an assignment: a use of a
	// worker there stores it rather than uses it.
	assigned map[*ast.Ident]bool
	// blankRead marks identifiers read only by _ = x.
	blankRead map[*ast.Ident]bool
	// compared marks identifiers compared with == or !=: comparing a
	// worker with another uses neither.
	compared map[*ast.Ident]bool
	// buffered marks channel variables made with a capacity.
	buffered  map[types.Object]bool
	uses      map[types.Object][]*ast.Ident
	varUses   map[*types.Var]*varUse
	summaries map[ast.Node]*summary
	// waiting records whether a helper given a worker makes an fj call
	// that waits (see helperWaits).
	waiting map[*ast.FuncDecl]bool
	ignore  ignores
	// captured gathers the captured-worker findings, one per literal and
	// variable, reported at the end with a fix that covers every use.
	captured map[captureKey]*capture
	order    []captureKey
	file     *ast.File
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{
		pass:       pass,
		info:       pass.TypesInfo,
		lits:       map[*ast.FuncLit]*litInfo{},
		decls:      map[*types.Func]*ast.FuncDecl{},
		localFuncs: map[*types.Var][]*ast.FuncLit{},
		assigned:   map[*ast.Ident]bool{},
		blankRead:  map[*ast.Ident]bool{},
		compared:   map[*ast.Ident]bool{},
		buffered:   map[types.Object]bool{},
		uses:       map[types.Object][]*ast.Ident{},
		varUses:    map[*types.Var]*varUse{},
		summaries:  map[ast.Node]*summary{},
		waiting:    map[*ast.FuncDecl]bool{},
		captured:   map[captureKey]*capture{},
	}
	c.ignore = parseIgnores(pass)
	for id, obj := range c.info.Uses {
		c.uses[obj] = append(c.uses[obj], id)
	}
	for _, f := range pass.Files {
		c.collect(f)
	}
	c.classify()
	for _, f := range pass.Files {
		c.file = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body == nil {
					continue
				}
				ctx := &context{kind: ctxPlain}
				if firstParamIsWorker(funcSig(c.info, d)) {
					ctx = &context{kind: ctxTask, boundary: d}
				}
				(&walker{c: c}).walk(d.Body, ctx)
			case *ast.GenDecl:
				(&walker{c: c}).walk(d, &context{kind: ctxPlain})
			}
		}
		c.checkLocks(f)
		c.checkEscapes(f)
		c.checkSpawns(f)
	}
	c.reportCaptures()
	return nil, nil
}

// collect classifies the function literals of a file and records the
// facts the walk needs: declarations, local closures, written
// identifiers, buffered channels.
func (c *checker) collect(f *ast.File) {
	info := c.info
	varUses := c.varUses
	useOf := func(e ast.Expr) *varUse {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			return nil
		}
		if _, ok := under(v.Type()).(*types.Signature); !ok {
			return nil
		}
		u := varUses[v]
		if u == nil {
			u = &varUse{}
			varUses[v] = u
		}
		return u
	}
	// handed records a literal, or a local closure, given to a call.
	handed := func(arg ast.Expr, li *litInfo) {
		switch a := ast.Unparen(arg).(type) {
		case *ast.FuncLit:
			c.lits[a] = li
		case *ast.Ident:
			if u := useOf(a); u != nil {
				switch li.kind {
				case litTask:
					u.task = true
				case litSection:
					u.section = true
				case litGo:
					u.goStmt = true
				default:
					u.other = true
				}
				if u.info == nil || li.kind == litTask {
					u.info = li
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if fn, ok := info.Defs[n.Name].(*types.Func); ok {
				c.decls[fn] = n
			}
		case *ast.GoStmt:
			handed(n.Call.Fun, &litInfo{kind: litGo})
		case *ast.CallExpr:
			if lit, ok := ast.Unparen(n.Fun).(*ast.FuncLit); ok {
				if c.lits[lit] == nil {
					c.lits[lit] = &litInfo{kind: litInline}
				}
			} else if u := useOf(n.Fun); u != nil {
				u.called = true
			}
			fn := fjCallee(info, n)
			if fn == nil {
				for _, a := range n.Args {
					if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok && c.lits[lit] == nil {
						c.lits[lit] = &litInfo{kind: litInline}
					}
				}
				return true
			}
			sig, _ := info.TypeOf(n.Fun).(*types.Signature)
			runner := c.runnerOf(n, fn, sig)
			for i, a := range n.Args {
				li := &litInfo{kind: litTask, callee: fn, call: n, runner: runner, arg: i}
				if isSection(fn) {
					li.kind = litSection
				} else if sig != nil {
					if pt := paramType(sig, i); pt != nil && (isNamed(pt, "iter", "Seq") || isNamed(pt, "iter", "Seq2")) {
						li.kind = litSeq
					}
				}
				if fn.Pkg().Path() == poolPath && recvName(fn) == "" && len(fn.Name()) > 4 && fn.Name()[:4] == "With" {
					li.kind = litOther // an option: a stall handler runs on the pool's own goroutine
				}
				handed(a, li)
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				if n.Tok == token.ASSIGN {
					c.assigned[id] = true
				}
				if id.Name == "_" && len(n.Lhs) == len(n.Rhs) {
					// _ = x reads x only to quiet the compiler.
					if r, ok := ast.Unparen(n.Rhs[i]).(*ast.Ident); ok {
						c.blankRead[r] = true
					}
				}
				if len(n.Lhs) == len(n.Rhs) {
					c.noteLocal(id, n.Rhs[i])
				} else if obj := info.ObjectOf(id); obj != nil {
					c.buffered[obj] = false
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) && len(n.Names) == len(n.Values) {
					c.noteLocal(id, n.Values[i])
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, e := range []ast.Expr{n.X, n.Y} {
					if id, ok := ast.Unparen(e).(*ast.Ident); ok {
						c.compared[id] = true
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && n.Tok == token.ASSIGN {
					c.assigned[id] = true
				}
			}
		}
		return true
	})
}

// varUse is how a local closure variable is used: its literal's kind
// follows.
type varUse struct {
	task, section, goStmt, other, called bool
	info                                 *litInfo
}

// classify gives each literal of the package its kind, once collect has
// seen every file.
func (c *checker) classify() {
	varUses := c.varUses
	// A local closure takes the kind of its strongest use.
	for v, lits := range c.localFuncs {
		u := varUses[v]
		for _, lit := range lits {
			li := &litInfo{kind: litLocal}
			switch {
			case u == nil:
			case u.task:
				li = u.info
			case u.goStmt:
				li = &litInfo{kind: litGo}
			case u.other && !u.called && !u.section:
				li = u.info
			case u.section && !u.called && !u.other:
				li = u.info
			}
			c.lits[lit] = li
		}
	}
	// Every other literal with a worker first is a task (a recursive
	// closure such as walk := func(w *pool.Worker, n *Node) {...});
	// the rest run where they are written, or are stored.
	for _, f := range c.pass.Files {
		c.classifyRest(f)
	}
}

func (c *checker) classifyRest(f *ast.File) {
	info := c.info
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			return true
		}
		li := c.lits[lit]
		if li != nil && li.kind != litInline && li.kind != litLocal {
			return true
		}
		if firstParamIsWorker(funcSig(info, lit)) {
			c.lits[lit] = &litInfo{kind: litTask}
		} else if li == nil {
			c.lits[lit] = &litInfo{kind: litOpaque}
		}
		return true
	})
}

// noteLocal records what an assignment to a local variable tells: a
// closure, or whether a channel is buffered (every value assigned to it
// made with a capacity).
func (c *checker) noteLocal(id *ast.Ident, rhs ast.Expr) {
	obj, ok := c.info.ObjectOf(id).(*types.Var)
	if !ok || obj.Parent() == nil || obj.Parent() == obj.Pkg().Scope() {
		return
	}
	if lit, ok := ast.Unparen(rhs).(*ast.FuncLit); ok {
		c.localFuncs[obj] = append(c.localFuncs[obj], lit)
		return
	}
	if _, isChan := under(obj.Type()).(*types.Chan); isChan {
		b := c.isBufferedMake(rhs)
		if prev, seen := c.buffered[obj]; seen {
			b = b && prev
		}
		c.buffered[obj] = b
	}
}

// isBufferedMake reports whether e is make(chan T, n) with n not 0.
func (c *checker) isBufferedMake(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	if b, ok := c.info.Uses[id].(*types.Builtin); !ok || b.Name() != "make" {
		return false
	}
	tv, ok := c.info.Types[call.Args[1]]
	return !ok || tv.Value == nil || tv.Value.String() != "0"
}

// paramType returns the type of the i-th argument's parameter, the
// element type for the variadic tail.
func paramType(sig *types.Signature, i int) types.Type {
	n := sig.Params().Len()
	if n == 0 {
		return nil
	}
	if sig.Variadic() && i >= n-1 {
		if s, ok := sig.Params().At(n - 1).Type().(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	}
	if i >= n {
		return nil
	}
	return sig.Params().At(i).Type()
}

// runnerOf returns the variable an fj call runs on: its first argument
// when that is a Runner (a *pool.Pool or *pool.Worker), or the receiver
// of Pool.Run and Worker.Run.
func (c *checker) runnerOf(call *ast.CallExpr, fn *types.Func, sig *types.Signature) types.Object {
	var e ast.Expr
	if r := recvName(fn); r == "Pool" || r == "Worker" {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			e = sel.X
		}
	} else if len(call.Args) > 0 {
		t := c.info.TypeOf(call.Args[0])
		if isPool(t) || isWorker(t) || isNamed(t, poolPath, "Runner") {
			e = call.Args[0]
		}
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v, ok := c.info.Uses[id].(*types.Var); ok {
			return v
		}
	}
	return nil
}

// report reports a finding unless a //fjvet:ignore comment silences it.
func (c *checker) report(rule string, pos, end token.Pos, fixes []analysis.SuggestedFix, format string, args ...any) {
	if c.ignore.silenced(c.pass.Fset, rule, pos) {
		return
	}
	c.pass.Report(analysis.Diagnostic{
		Pos:            pos,
		End:            end,
		Category:       rule,
		Message:        rule + ": " + fmt.Sprintf(format, args...),
		SuggestedFixes: fixes,
	})
}

// contains reports whether node n spans position pos.
func contains(n ast.Node, pos token.Pos) bool {
	return n != nil && n.Pos() <= pos && pos < n.End()
}
