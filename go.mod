module github.com/forkjoin/fj

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
	golang.org/x/exp v0.0.0-20240719175910-8a7402abbf56
)

require github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261
