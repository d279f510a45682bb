package fjvet

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// The import paths of fj's public packages: the analyzer recognises the
// library by these, so a fork under another path is not checked.
const (
	fjRoot        = "github.com/forkjoin/fj"
	poolPath      = fjRoot + "/pool"
	forkjoinPath  = fjRoot + "/forkjoin"
	taskblockPath = fjRoot + "/taskblock"
	parallelPath  = fjRoot + "/parallel"
)

// isFJ reports whether pkg is one of the packages whose calls run the
// functions they are given on a pool's workers.
func isFJ(pkg *types.Package) bool {
	if pkg == nil {
		return false
	}
	switch pkg.Path() {
	case poolPath, forkjoinPath, taskblockPath, parallelPath:
		return true
	}
	return false
}

// isNamed reports whether t (aliases resolved) is the named type
// path.name.
func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	o := n.Obj()
	return o.Pkg() != nil && o.Pkg().Path() == path && o.Name() == name
}

// under returns t's underlying type, or nil for nil (an expression the
// type checker could not type).
func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// isPtrTo reports whether t is a pointer to the named type path.name.
func isPtrTo(t types.Type, path, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), path, name)
}

func isWorker(t types.Type) bool { return t != nil && isPtrTo(t, poolPath, "Worker") }
func isPool(t types.Type) bool   { return t != nil && isPtrTo(t, poolPath, "Pool") }
func isBlock(t types.Type) bool  { return t != nil && isPtrTo(t, taskblockPath, "Block") }

// firstParamIsWorker reports whether the signature's first parameter (the
// receiver aside) is a *pool.Worker: the shape of every function fj runs
// as a task, and of the recursive helpers those tasks call.
func firstParamIsWorker(sig *types.Signature) bool {
	return sig != nil && sig.Params().Len() > 0 && isWorker(sig.Params().At(0).Type())
}

// funcSig returns the signature of a function literal or declaration.
func funcSig(info *types.Info, n ast.Node) *types.Signature {
	switch n := n.(type) {
	case *ast.FuncLit:
		sig, _ := info.TypeOf(n).(*types.Signature)
		return sig
	case *ast.FuncDecl:
		if fn, ok := info.Defs[n.Name].(*types.Func); ok {
			return fn.Type().(*types.Signature)
		}
	}
	return nil
}

// calleeFunc returns the function or method a call statically calls, or
// nil (a call of a function value, a conversion, a builtin).
func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// fjCallee returns the fj function or method a call calls, or nil.
func fjCallee(info *types.Info, call *ast.CallExpr) *types.Func {
	if fn := calleeFunc(info, call); fn != nil && isFJ(fn.Pkg()) {
		return fn
	}
	return nil
}

// recvName returns the name of a method's receiver type ("Pool" for
// (*pool.Pool).Run), or "" for a function.
func recvName(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return ""
	}
	t := types.Unalias(sig.Recv().Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// is reports whether fn is the function name of the package at path, or,
// when name has a dot ("Pool.Close"), the method after the dot of the
// type before it.
func is(fn *types.Func, path, name string) bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != path {
		return false
	}
	if r, m, ok := strings.Cut(name, "."); ok {
		return recvName(fn) == r && fn.Name() == m
	}
	return recvName(fn) == "" && fn.Name() == name
}

// displayName names an fj function as its users write it:
// parallel.For, forkjoin.Join, taskblock.Block.Run, pool.Pool.Close.
func displayName(fn *types.Func) string {
	s := fn.Pkg().Name() + "."
	if r := recvName(fn); r != "" {
		s += r + "."
	}
	return s + fn.Name()
}

// isSection reports whether fn runs its function argument as a blocking
// section of the calling task.
func isSection(fn *types.Func) bool {
	return is(fn, poolPath, "Blocking") || is(fn, poolPath, "BlockingValue")
}

// waits reports whether a call of the fj function fn can make the calling
// task wait for other tasks (a join, a loop, a task block, a Run): a lock
// held across such a call is held while the worker runs other tasks.
// Spawn and Fork queue a task and return; Enter, NewPerWorker, the
// options and the accessors return at once.
func waits(fn *types.Func) bool {
	switch fn.Pkg().Path() {
	case forkjoinPath:
		switch recvName(fn) {
		case "":
			return fn.Name() != "Spawn" && fn.Name() != "Fork"
		case "Future", "Task":
			return fn.Name() == "Join"
		}
	case taskblockPath:
		return is(fn, taskblockPath, "Define") || is(fn, taskblockPath, "DefineErr") || is(fn, taskblockPath, "Block.Wait")
	case poolPath:
		return is(fn, poolPath, "Region") || is(fn, poolPath, "Pool.Run") || is(fn, poolPath, "Worker.Run") || is(fn, poolPath, "Pool.Close")
	case parallelPath:
		// Every loop, reduction, search and sort takes a Runner first;
		// the options and NewPerWorker do not wait.
		sig := fn.Type().(*types.Signature)
		return recvName(fn) == "" && fn.Name() != "NewPerWorker" && sig.Params().Len() > 0 &&
			isNamed(sig.Params().At(0).Type(), poolPath, "Runner")
	}
	return false
}
