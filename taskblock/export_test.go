package taskblock

// SameState reports whether a and b are served by the same state: b's
// Define took the state a's Define handed back (newBlock, release).
func SameState(a, b *Block) bool {
	sa, _ := a.load()
	sb, _ := b.load()
	return sa == sb
}
