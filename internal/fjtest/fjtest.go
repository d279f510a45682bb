// Package fjtest holds test helpers shared by fj's packages. It is imported
// only from _test.go files.
package fjtest

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

// Deadline fails the test binary if the calling test has not finished within
// d: it prints the stacks of all goroutines (so a hang shows where every
// worker is stuck) and exits with status 2. A hung test cannot be failed
// from another goroutine with t.Fatal, so this is the only way to turn a
// deadlock into a prompt, readable failure instead of a CI timeout.
//
// The deadline is scaled up under the race detector, which slows code ~10x,
// and brought forward to ten seconds before go test's -timeout, so that
// the dump, which names the test, always comes first.
func Deadline(t testing.TB, d time.Duration) {
	t.Helper()
	if RaceEnabled {
		d *= 10
	}
	// Fire before go test's own -timeout does: its panic prints the
	// goroutines too, but names no test and comes after the output that
	// a pipe may cut; ten seconds ahead, this dump names the test.
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := dt.Deadline(); ok {
			if left := time.Until(end) - 10*time.Second; left > 0 && left < d {
				d = left
			}
		}
	}
	name := t.Name()
	timer := time.AfterFunc(d, func() {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		fmt.Fprintf(os.Stderr, "\n--- FAIL: %s: still running after %v (deadlock?); all goroutines:\n\n%s\n", name, d, buf)
		os.Exit(2)
	})
	t.Cleanup(func() { timer.Stop() })
}

// Catch runs f and returns what it panicked with, or nil if it returned.
func Catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// PanicMessage returns the text of a string or error panic value, or "".
func PanicMessage(r any) string {
	switch v := r.(type) {
	case string:
		return v
	case error:
		return v.Error()
	}
	return ""
}

// Small returns n, or the smaller size under the race detector or -short.
func Small(n, small int) int {
	if RaceEnabled || testing.Short() {
		return small
	}
	return n
}

// Stress returns the size of a stress test: long with FJ_LONG (the long
// runs, which .ci/run makes in a step of their own), small under the race
// detector or -short, and n otherwise, a size that keeps the README's
// `go test ./...` within a minute on two cores while still catching what
// the test is for in most runs.
func Stress(n, long, small int) int {
	switch {
	case RaceEnabled || testing.Short():
		return small
	case Long():
		return long
	}
	return n
}

// Long reports whether long stress runs are wanted: FJ_LONG is set in
// the environment, as .ci/run sets it. Without it, `go test ./...` stays
// quick for users, and stress tests run a smaller, still meaningful size.
func Long() bool { return os.Getenv("FJ_LONG") != "" }

// NumGoroutine returns the number of goroutines, as runtime.NumGoroutine
// does, but exact whenever it is above over. The runtime's count is read
// without a lock and says so (runtime.gcount): while dead goroutines move
// between its free lists it can be off by thousands for an instant, which
// a test bounding the goroutines a computation keeps (parked carriers)
// would take for a leak. A count above over is taken again from a
// goroutine dump, which stops the world: rare, as long as over bounds
// what the test expects.
func NumGoroutine(over int) int {
	if n := runtime.NumGoroutine(); n <= over {
		return n
	}
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	// Each goroutine's record starts with "goroutine N [...]:", at the
	// start of the dump or after the blank line that ends the last one.
	return bytes.Count(buf, []byte("\n\ngoroutine ")) + 1
}
