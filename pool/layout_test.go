package pool

import (
	"testing"
	"unsafe"

	"github.com/forkjoin/fj/internal/sched"
)

// Pool and Worker consist of the scheduler's types alone, so that
// sched.As and sched.From convert between them at no cost.
func TestPublicTypesAreTheSchedulersAlone(t *testing.T) {
	if unsafe.Sizeof(Pool{}) != unsafe.Sizeof(sched.Pool{}) || unsafe.Alignof(Pool{}) != unsafe.Alignof(sched.Pool{}) {
		t.Errorf("pool.Pool is not a sched.Pool alone")
	}
	if unsafe.Sizeof(Worker{}) != unsafe.Sizeof(sched.Worker{}) || unsafe.Alignof(Worker{}) != unsafe.Alignof(sched.Worker{}) {
		t.Errorf("pool.Worker is not a sched.Worker alone")
	}
}
