//go:build gc && (386 || amd64 || arm || arm64 || s390x)

package sched

import (
	"unsafe"

	_ "github.com/petermattis/goid" // getg's definition
)

// getg returns the calling goroutine's g (stall.md, V1): goid's assembly
// stub, the one its Get reads the id through (three instructions, no
// call into the runtime), on the platforms where goid has one (goidAsm).
//
//go:linkname getg github.com/petermattis/goid.getg
func getg() unsafe.Pointer
