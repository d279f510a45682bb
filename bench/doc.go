// Package bench compares fj with other Go libraries on the same workloads.
//
// It is a module of its own so that fj's go.mod requires none of the
// libraries it is compared with. The package has no API: its tests check
// that every implementation computes what the sequential code computes,
// on small inputs, and its benchmarks time them on the inputs of fj's own
// benchmarks (bench_*_test.go at the root of fj):
//
//	cd bench && go test -run '^$' -bench . -cpu 1,2 -count 5 | tee ../docs/data/peers.txt
//	benchstat -col /impl ../docs/data/peers.txt
//
// cmd/charts draws docs/*.svg from such output.
package bench
