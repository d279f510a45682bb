module fjvettest

go 1.23

require github.com/forkjoin/fj v0.0.0-00010101000000-000000000000

require (
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261 // indirect
	golang.org/x/exp v0.0.0-20240719175910-8a7402abbf56 // indirect
)

replace github.com/forkjoin/fj => ../..
