package pool

import (
	"fmt"
	"runtime"
	"time"

	"github.com/forkjoin/fj/internal/sched"
)

// Config is the configuration of a pool; Options modify it.
type Config struct {
	// Workers is the number of worker goroutines. Default:
	// runtime.GOMAXPROCS(0) at the time of New.
	Workers int
	// DequeCapacity is the capacity of each worker's deque, rounded up to
	// a power of two. Forks beyond it go to the shared injector, which is
	// slower but unbounded. Default: 1024.
	DequeCapacity int
	// Name identifies the pool in Stats output, profiler labels and
	// execution traces. Default: "fj".
	Name string
	// MaxBlocking limits the tasks inside a blocking section's f at once,
	// as errgroup's SetLimit does (see Blocking and WithMaxBlocking). 0
	// means the default: no limit.
	MaxBlocking int
	// StallThreshold is how long the stall report waits after the first
	// block it describes (see StallReport and WithStallThreshold); the
	// hand-over of a blocked task's worker does not wait for it. 0 means the default, 50 ms; a negative value
	// turns the watch off.
	StallThreshold time.Duration
	// StallHandler receives the pool's stall report (see
	// WithStallHandler). nil means the default: print it to standard
	// error.
	StallHandler func(StallReport)
}

// Option configures a pool in New.
type Option func(*Config)

// WithWorkers sets the number of workers. It panics if n < 1.
func WithWorkers(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("pool: WithWorkers(%d): a pool needs at least one worker", n))
	}
	return func(c *Config) { c.Workers = n }
}

// WithDequeCapacity sets the capacity of each worker's deque, rounded up
// to a power of two. The limit is 2^30 (1<<30) entries, the largest deque
// whose indices the deque's arithmetic supports; forks beyond a deque's
// capacity go to the pool's injector anyway. It panics, at the call, if
// n < 1 or n > 2^30.
func WithDequeCapacity(n int) Option {
	if n < 1 || n > maxDequeCapacity {
		panic(fmt.Sprintf("pool: WithDequeCapacity(%d): capacity must be between 1 and 1<<30 (%d)", n, maxDequeCapacity))
	}
	return func(c *Config) { c.DequeCapacity = n }
}

// maxDequeCapacity is the largest capacity WithDequeCapacity accepts, the
// deque package's limit.
const maxDequeCapacity = 1 << 30

// WithName names the pool for Stats, profiles and traces.
func WithName(name string) Option {
	return func(c *Config) { c.Name = name }
}

func makeConfig(opts []Option) sched.Config {
	c := Config{Workers: runtime.GOMAXPROCS(0), DequeCapacity: 1024, Name: "fj"}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return sched.Config{Workers: c.Workers, DequeCapacity: c.DequeCapacity, Name: c.Name, MaxBlocking: c.MaxBlocking,
		StallThreshold: c.StallThreshold, StallHandler: stallHandler(c.StallHandler)}
}
