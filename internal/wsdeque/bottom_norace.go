//go:build !race

package wsdeque

// setBottom is the owner's store of bottom: a plain store, no fence (D2,
// D3). Thieves load bottom only after the heavy barrier (D8, H1), which
// makes this store visible to them or the owner's next load of top see
// their claim; a plain aligned 64-bit store is one MOV on the platforms
// where that barrier exists (barrier_linux_amd64.go), so it is never torn.
// Under the race detector the store is atomic instead (bottom_race.go): a
// race build then checks the private steal as an ordinary sequentially
// consistent Chase–Lev deque, with the happens-before edge from the
// owner's push to the thief that the hardware gives here.
func (d *Deque[T]) setBottom(b int64) { d.bottom = b }
