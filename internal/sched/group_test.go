package sched

import (
	"strings"
	"sync"
	"testing"

	"github.com/forkjoin/fj/internal/fjtest"
)

// TestGroupBelowZeroPanics: a done or a Close more than G1 counts is a
// bug in the caller, and panics, canceled or not.
func TestGroupBelowZeroPanics(t *testing.T) {
	for _, canceled := range []bool{false, true} {
		for _, extra := range []string{"done", "Close"} {
			var g Group
			g.Open(&groupOwner{})
			if canceled {
				g.Cancel()
			}
			g.Close()
			r := fjtest.Catch(func() {
				if extra == "done" {
					g.done()
				} else {
					g.Close()
				}
			})
			if msg := fjtest.PanicMessage(r); !strings.Contains(msg, "below zero") {
				t.Errorf("canceled=%v: an extra %s on an ended group: panic %#v, want one about going below zero", canceled, extra, r)
			}
		}
	}
}

// groupOwner records the failures reported to it (GroupOwner).
type groupOwner struct {
	mu     sync.Mutex
	panics []*Panic
	errs   []error
}

func (o *groupOwner) Failed(p *Panic, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if p != nil {
		o.panics = append(o.panics, p)
	}
	if err != nil {
		o.errs = append(o.errs, err)
	}
}
