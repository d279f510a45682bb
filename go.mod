module github.com/forkjoin/fj

go 1.22

require (
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
)
