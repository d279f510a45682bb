//go:build !linux

package parallel

// mapArena returns nil: scratch memory comes from the Go heap here
// (sort_key_scratch.md, K5).
func mapArena(n int) []byte { return nil }

func unmapArena(b []byte) {}
