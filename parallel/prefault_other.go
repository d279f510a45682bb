//go:build !linux

package parallel

import "unsafe"

// prefault reports false: the caller writes to the pages itself
// (sort_key_scratch.md, K3).
func prefault(p unsafe.Pointer, n uintptr) bool { return false }
