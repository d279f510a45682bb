// Command quicksort sorts random integers with a quicksort written directly
// with forkjoin.Join, and compares it with slices.Sort and parallel.Sort.
//
//	go run ./examples/quicksort [-n 5000000] [-workers N]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// quicksort sorts s: partition around a median-of-three pivot, then sort
// both sides at once with Join. Small pieces are left to slices.Sort, and
// so are pieces that partitioned badly too often (the depth limit), which
// keeps the worst case O(n log n).
func quicksort(w *pool.Worker, s []int, depth int) {
	if len(s) <= 4096 || depth == 0 {
		slices.Sort(s)
		return
	}
	m := partition(s)
	forkjoin.Join(w,
		func(w *pool.Worker) int { quicksort(w, s[:m], depth-1); return 0 },
		func(w *pool.Worker) int { quicksort(w, s[m+1:], depth-1); return 0 })
}

// partition moves the median of s[0], s[mid], s[last] to the end, splits
// s around it (Lomuto), and returns the pivot's final index.
func partition(s []int) int {
	last, mid := len(s)-1, len(s)/2
	if s[mid] < s[0] {
		s[mid], s[0] = s[0], s[mid]
	}
	if s[last] < s[0] {
		s[last], s[0] = s[0], s[last]
	}
	if s[mid] < s[last] {
		s[mid], s[last] = s[last], s[mid]
	}
	pivot, i := s[last], 0
	for j := 0; j < last; j++ {
		if s[j] < pivot {
			s[i], s[j] = s[j], s[i]
			i++
		}
	}
	s[i], s[last] = s[last], s[i]
	return i
}

func timeIt(name string, data []int, sort func([]int)) time.Duration {
	s := slices.Clone(data)
	start := time.Now()
	sort(s)
	d := time.Since(start)
	if !slices.IsSorted(s) {
		panic(name + ": not sorted")
	}
	fmt.Printf("%-28s %v\n", name, d.Round(time.Microsecond))
	return d
}

func main() {
	n := flag.Int("n", 5_000_000, "number of integers")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	flag.Parse()

	data := make([]int, *n)
	for i := range data {
		data[i] = rand.Int()
	}
	p := pool.New(pool.WithWorkers(*workers))
	defer p.Close()

	fmt.Printf("sorting %d random ints, %d workers\n", *n, p.Workers())
	base := timeIt("slices.Sort", data, func(s []int) { slices.Sort(s) })
	qs := timeIt("quicksort with forkjoin.Join", data, func(s []int) {
		forkjoin.Invoke(p, func(w *pool.Worker) int { quicksort(w, s, 64); return 0 })
	})
	ps := timeIt("parallel.Sort", data, func(s []int) { parallel.Sort(p, s) })
	fmt.Printf("speedup over slices.Sort: quicksort %.2fx, parallel.Sort %.2fx\n",
		base.Seconds()/qs.Seconds(), base.Seconds()/ps.Seconds())
}
