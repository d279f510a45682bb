#!/usr/bin/env bash
# Re-measures the data behind docs/peers.md and docs/*.svg:
#
#	bench/measure.sh             # writes docs/data/peers.txt
#	benchstat -col /impl docs/data/peers.txt
#	cd bench && go run ./cmd/charts
#
# go test -count repeats each sub-benchmark in a row, so a disturbance
# (another process, a frequency change) would hit one implementation
# only. Instead every round runs each implementation once, at every
# worker count, and the rounds are repeated: the implementations take
# turns. ROUNDS (default 5), CPUS (default 1,2: the worker counts, via
# GOMAXPROCS) and BENCH (default all) override the defaults.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${ROUNDS:-5}
cpus=${CPUS:-1,2}
bench=${BENCH:-.}
out=../docs/data/peers.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/peers.test" .
mkdir -p "$(dirname "$out")"
{
	echo "cores: $(getconf _NPROCESSORS_ONLN)"
	echo "go: $(go env GOVERSION)"
	for i in $(seq "$rounds"); do
		echo "round: $i" >&2
		"$tmp/peers.test" -test.run '^$' -test.bench "$bench" -test.cpu "$cpus" -test.count 1 -test.timeout 30m
	done
} >"$out"
echo "wrote $out" >&2
