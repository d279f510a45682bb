// Package bench compares fj with other Go libraries on the same workloads.
//
// It is a module of its own so that fj's go.mod requires none of the
// libraries it is compared with. The package has no API: its tests check
// that every implementation computes what the sequential code computes,
// on small inputs, and its benchmarks time them on the inputs of fj's own
// benchmarks (bench_*_test.go at the root of fj):
//
//	bench/measure.sh    # five rounds of every benchmark at 1 and 2 workers
//	benchstat -col /impl docs/data/peers.txt
//
// cmd/charts draws docs/*.svg from docs/data/peers.txt.
//
// Package cilk5 is fj's suite of the programs of the Cilk-5 paper, each
// beside its serial elision; cmd/cilk5 measures their work overhead
// (docs/data/cilk5.txt, docs/work-overhead.svg).
package bench
