//go:build !(linux && amd64) || fjnoprivate

package wsdeque

// No asymmetric fence is used on this platform (wsdeque.md, "Where there
// is no heavy barrier"): private steals are off, and a worker's private
// tasks wait for their owner's next fork, join, loop step or task
// boundary once a thief took its last published one. The build tag
// fjnoprivate selects this file on linux/amd64 too, so that the path
// every other platform takes is built and tested where the barrier exists.
func registerBarrier() bool { return false }

func heavyBarrier() bool { return false }
