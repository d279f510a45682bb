//go:build !race && !fjdebug

package fj_test

import "testing"

// TestCapturedWorkerCaughtOnOneCPU runs in builds with debug checks only
// (aside_test.go): plain builds keep the schedule as it is.
func TestCapturedWorkerCaughtOnOneCPU(t *testing.T) {
	t.Skip("the captured-worker perturbation runs under -race or -tags fjdebug only: go test -race -run CapturedWorker .")
}
