module github.com/forkjoin/fj/bench

go 1.23

replace github.com/forkjoin/fj => ../

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/exascience/pargo v1.1.0
	github.com/forkjoin/fj v0.0.0-00010101000000-000000000000
	github.com/jfcg/sorty/v2 v2.1.1
	github.com/rah-0/parsort v1.3.1
	github.com/sourcegraph/conc v0.3.0
	github.com/twotwotwo/sorts v0.0.0-20160814051341-bf5c1f2b8553
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.10.0
)

require (
	github.com/jfcg/sixb v1.4.1 // indirect
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/exp v0.0.0-20240719175910-8a7402abbf56 // indirect
)
