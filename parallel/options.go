package parallel

// Option configures a parallel loop, reduction, scan or sort.
type Option func(*config)

type config struct {
	grain int // minimum number of iterations per task; 0 means adaptive
}

// Grain sets the minimum number of iterations a task handles: pieces of
// the range are never split below n. Use it when iterations are so cheap
// that the adaptive default splits more than it should, or to bound how
// many tasks a call creates. A grain of 0 or less means the default.
//
// By default the split is adaptive: the range is cut into a few pieces per
// worker, and a piece is split further only when another worker has stolen
// it, which is the sign that workers are idle. Balanced loops therefore
// cost a handful of tasks per worker, and imbalanced ones are split as
// finely as the imbalance requires.
func Grain(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.grain = n
		} else {
			c.grain = 0
		}
	}
}

func makeConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}
