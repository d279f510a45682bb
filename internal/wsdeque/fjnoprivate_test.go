//go:build fjnoprivate

package wsdeque

import "testing"

// TestFjnoprivateTurnsPrivateStealsOff checks what the build tag is for:
// a run with it takes the path of a platform without the heavy barrier,
// whatever this machine has, and tests cannot turn private steals back on.
func TestFjnoprivateTurnsPrivateStealsOff(t *testing.T) {
	if PrivateSteals() {
		t.Fatal("PrivateSteals() = true under the fjnoprivate tag")
	}
	was := SetPrivateSteals(true)
	defer SetPrivateSteals(was)
	if PrivateSteals() || Barrier() {
		t.Fatal("SetPrivateSteals(true) turned private steals on under the fjnoprivate tag")
	}
}
