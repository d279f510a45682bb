module github.com/forkjoin/fj/bench

go 1.23

replace github.com/forkjoin/fj => ../

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/forkjoin/fj v0.0.0-00010101000000-000000000000
	github.com/sourcegraph/conc v0.3.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.10.0
)

require (
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/exp v0.0.0-20240719175910-8a7402abbf56 // indirect
)
