package fjvet

import (
	"go/ast"
	"go/types"
	"strings"
)

// blockingCalls is the table of the standard library's calls that block
// (the package documentation lists it): each waits for another goroutine,
// a timer, a process, the file system or the network. Keys are
// types.Func.FullName. A method promoted from an embedded type is named
// by the type that declares it, hence the net and os entries below are
// matched by package instead (see stdBlocking).
var blockingCalls = map[string]string{
	"time.Sleep":             "time.Sleep",
	"(*sync.WaitGroup).Wait": "sync.WaitGroup.Wait",
	"(*sync.Cond).Wait":      "sync.Cond.Wait",

	"os.ReadFile":  "os.ReadFile",
	"os.WriteFile": "os.WriteFile",
	"os.ReadDir":   "os.ReadDir",
	"os.Open":      "os.Open",
	"os.OpenFile":  "os.OpenFile",
	"os.Create":    "os.Create",

	"(*os/exec.Cmd).Run":            "exec.Cmd.Run",
	"(*os/exec.Cmd).Wait":           "exec.Cmd.Wait",
	"(*os/exec.Cmd).Output":         "exec.Cmd.Output",
	"(*os/exec.Cmd).CombinedOutput": "exec.Cmd.CombinedOutput",

	"net/http.Get":                      "http.Get",
	"net/http.Head":                     "http.Head",
	"net/http.Post":                     "http.Post",
	"net/http.PostForm":                 "http.PostForm",
	"(*net/http.Client).Do":             "http.Client.Do",
	"(*net/http.Client).Get":            "http.Client.Get",
	"(*net/http.Client).Head":           "http.Client.Head",
	"(*net/http.Client).Post":           "http.Client.Post",
	"(*net/http.Client).PostForm":       "http.Client.PostForm",
	"net/http.ListenAndServe":           "http.ListenAndServe",
	"net/http.ListenAndServeTLS":        "http.ListenAndServeTLS",
	"net/http.Serve":                    "http.Serve",
	"(*net/http.Server).Serve":          "http.Server.Serve",
	"(*net/http.Server).ListenAndServe": "http.Server.ListenAndServe",

	"(*database/sql.DB).Query":           "sql.DB.Query",
	"(*database/sql.DB).QueryContext":    "sql.DB.QueryContext",
	"(*database/sql.DB).QueryRow":        "sql.DB.QueryRow",
	"(*database/sql.DB).QueryRowContext": "sql.DB.QueryRowContext",
	"(*database/sql.DB).Exec":            "sql.DB.Exec",
	"(*database/sql.DB).ExecContext":     "sql.DB.ExecContext",
	"(*database/sql.DB).Ping":            "sql.DB.Ping",
	"(*database/sql.DB).PingContext":     "sql.DB.PingContext",
	"(*database/sql.DB).Begin":           "sql.DB.Begin",
	"(*database/sql.DB).BeginTx":         "sql.DB.BeginTx",
	"(*database/sql.Tx).Query":           "sql.Tx.Query",
	"(*database/sql.Tx).QueryContext":    "sql.Tx.QueryContext",
	"(*database/sql.Tx).QueryRow":        "sql.Tx.QueryRow",
	"(*database/sql.Tx).QueryRowContext": "sql.Tx.QueryRowContext",
	"(*database/sql.Tx).Exec":            "sql.Tx.Exec",
	"(*database/sql.Tx).ExecContext":     "sql.Tx.ExecContext",
	"(*database/sql.Tx).Commit":          "sql.Tx.Commit",
	"(*database/sql.Tx).Rollback":        "sql.Tx.Rollback",
}

// streamCalls are the io functions that block when they read from or
// write to a file, a connection or an HTTP body, and do not on a
// bytes.Buffer or a strings.Reader: they are reported when one of their
// arguments is a stream (see isStream).
var streamCalls = map[string]bool{
	"io.ReadAll": true, "io.ReadFull": true, "io.ReadAtLeast": true,
	"io.Copy": true, "io.CopyN": true, "io.CopyBuffer": true, "io.WriteString": true,
}

// fileMethods are the methods of *os.File that do I/O.
var fileMethods = map[string]bool{
	"Read": true, "ReadAt": true, "ReadFrom": true, "Write": true, "WriteAt": true,
	"WriteString": true, "WriteTo": true, "Sync": true, "ReadDir": true, "Readdir": true,
	"Readdirnames": true,
}

// stdBlocking returns the name of the blocking standard library call a
// call makes ("time.Sleep"), or "".
func stdBlocking(info *types.Info, call *ast.CallExpr, fn *types.Func) string {
	if fn.Pkg() == nil {
		return ""
	}
	if name, ok := blockingCalls[fn.FullName()]; ok {
		return name
	}
	path, recv := fn.Pkg().Path(), recvName(fn)
	switch {
	case path == "net" && recv == "" && (strings.HasPrefix(fn.Name(), "Dial") || strings.HasPrefix(fn.Name(), "Listen") || strings.HasPrefix(fn.Name(), "Lookup")):
		return "net." + fn.Name()
	case path == "net" && recv != "" && (strings.HasPrefix(fn.Name(), "Read") || strings.HasPrefix(fn.Name(), "Write") ||
		strings.HasPrefix(fn.Name(), "Accept") || strings.HasPrefix(fn.Name(), "Dial") || strings.HasPrefix(fn.Name(), "Lookup")):
		// net.Conn, net.Listener, *net.TCPConn, *net.Dialer, *net.Resolver ...
		return "net." + recvOf(info, call, recv) + "." + fn.Name()
	case path == "os" && fileMethods[fn.Name()] && recvIsFile(info, call):
		return "os.File." + fn.Name()
	case streamCalls[fn.FullName()]:
		for _, a := range call.Args {
			if isStream(info, a) {
				return fn.FullName()
			}
		}
	}
	return ""
}

// recvOf names the receiver type of a method call as written (net.Conn,
// not the unexported type that declares a promoted method).
func recvOf(info *types.Info, call *ast.CallExpr, declared string) string {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		t := types.Unalias(info.TypeOf(sel.X))
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		if n, ok := t.(*types.Named); ok {
			return n.Obj().Name()
		}
	}
	return declared
}

// recvIsFile reports whether a method call's receiver is an *os.File.
func recvIsFile(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && isPtrTo(info.TypeOf(sel.X), "os", "File")
}

// isStream reports whether e, as written, is a file, a network
// connection or an HTTP body: an *os.File, a value of a type of package
// net, or the Body of an *http.Response or *http.Request.
func isStream(info *types.Info, e ast.Expr) bool {
	e = ast.Unparen(e)
	t := info.TypeOf(e)
	if t == nil {
		return false
	}
	if isPtrTo(t, "os", "File") {
		return true
	}
	u := types.Unalias(t)
	if p, ok := u.(*types.Pointer); ok {
		u = types.Unalias(p.Elem())
	}
	if n, ok := u.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net" {
		return true
	}
	if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "Body" {
		xt := info.TypeOf(sel.X)
		return isPtrTo(xt, "net/http", "Response") || isPtrTo(xt, "net/http", "Request")
	}
	return false
}
