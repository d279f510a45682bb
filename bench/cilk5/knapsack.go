package cilk5

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// An Item is one item of a 0/1 knapsack problem. Weights are positive.
type Item struct {
	Weight, Value int
}

// KnapsackItems returns n items drawn from a generator seeded with seed,
// so that every call with the same n and seed returns the same items, and
// a capacity of half their total weight. Weights are uniform in [1000,
// 2000] and every value is its weight plus 100 (strongly correlated items
// with a fixed offset): the ratios of value to weight are all close, so
// the bound cuts late and branch and bound searches a large tree. How
// large depends on the seed: with 30 items, from thousands of nodes to
// about ten million.
func KnapsackItems(n int, seed uint64) (items []Item, capacity int) {
	r := rand.New(rand.NewPCG(seed, 0))
	items = make([]Item, n)
	total := 0
	for i := range items {
		w := 1000 + r.IntN(1001)
		items[i] = Item{Weight: w, Value: w + 100}
		total += w
	}
	return items, total / 2
}

// pruned is what a search returns for a branch that cannot beat the best
// so far, or that overflows the knapsack. Values are never negative.
const pruned = -1

// byRatio returns the items sorted by value per unit of weight, best
// first, which the bound of the search relies on. It panics on an item
// with a weight that is not positive or a negative value.
func byRatio(items []Item) []Item {
	for i, it := range items {
		if it.Weight <= 0 || it.Value < 0 {
			panic(fmt.Sprintf("cilk5: knapsack item %d is %+v: weights must be positive and values not negative", i, it))
		}
	}
	s := slices.Clone(items)
	slices.SortStableFunc(s, func(a, b Item) int {
		return cmp.Compare(b.Value*a.Weight, a.Value*b.Weight)
	})
	return s
}

// Knapsack is the serial elision of the knapsack program: the best total
// value of a subset of items whose weights sum to at most capacity, found
// by branch and bound as Cilk-5's knapsack does. It panics if an item's
// weight is not positive or its value is negative. Every node of the search
// tree takes item i or leaves it; a node whose bound (its value plus the
// remaining capacity filled at item i's value per weight, the best left)
// cannot beat the best value found so far is cut off.
func Knapsack(items []Item, capacity int) int {
	k := knapsack{items: byRatio(items)}
	return max(k.search(0, capacity, 0), 0)
}

// knapsack is the state of one serial search: the items, best first, and
// the best value found so far.
type knapsack struct {
	items []Item
	best  int
}

func (k *knapsack) search(i, capacity, value int) int {
	if capacity < 0 {
		return pruned
	}
	if i == len(k.items) || capacity == 0 {
		return value
	}
	it := k.items[i]
	if value+capacity*it.Value/it.Weight <= k.best {
		return pruned
	}
	with := k.search(i+1, capacity-it.Weight, value+it.Value)
	without := k.search(i+1, capacity, value)
	best := max(with, without)
	if best > k.best {
		k.best = best
	}
	return best
}

// KnapsackArgs is Knapsack with a fork at every node of the search tree,
// written with the argument-carrying forkjoin.JoinArgs: a node is a small
// struct passed by value, so a fork needs no closure. The best value so
// far is shared by all tasks through an atomic maximum; on one worker the
// tasks run in the serial elision's order and search the same tree.
func KnapsackArgs(w *pool.Worker, items []Item, capacity int) int {
	k := &sharedKnapsack{items: byRatio(items)}
	return max(knapsackArgs(w, knapsackNode{k, 0, capacity, 0}), 0)
}

// KnapsackJoin is KnapsackArgs written with the closure form
// forkjoin.Join.
func KnapsackJoin(w *pool.Worker, items []Item, capacity int) int {
	k := &sharedKnapsack{items: byRatio(items)}
	return max(k.searchJoin(w, 0, capacity, 0), 0)
}

// sharedKnapsack is the state of a parallel search, shared by its tasks.
type sharedKnapsack struct {
	items []Item
	best  atomic.Int64
}

// raise makes v the best value so far if it is better.
func (k *sharedKnapsack) raise(v int) {
	for {
		b := k.best.Load()
		if int64(v) <= b || k.best.CompareAndSwap(b, int64(v)) {
			return
		}
	}
}

// knapsackNode is one node of the search tree: decide item i with
// capacity left and value gained so far.
type knapsackNode struct {
	k                  *sharedKnapsack
	i, capacity, value int
}

func knapsackArgs(w *pool.Worker, n knapsackNode) int {
	k := n.k
	if n.capacity < 0 {
		return pruned
	}
	if n.i == len(k.items) || n.capacity == 0 {
		return n.value
	}
	it := k.items[n.i]
	if int64(n.value+n.capacity*it.Value/it.Weight) <= k.best.Load() {
		return pruned
	}
	with, without := forkjoin.JoinArgs(w, knapsackArgs,
		knapsackNode{k, n.i + 1, n.capacity - it.Weight, n.value + it.Value},
		knapsackNode{k, n.i + 1, n.capacity, n.value})
	best := max(with, without)
	k.raise(best)
	return best
}

func (k *sharedKnapsack) searchJoin(w *pool.Worker, i, capacity, value int) int {
	if capacity < 0 {
		return pruned
	}
	if i == len(k.items) || capacity == 0 {
		return value
	}
	it := k.items[i]
	if int64(value+capacity*it.Value/it.Weight) <= k.best.Load() {
		return pruned
	}
	with, without := forkjoin.Join(w,
		func(w *pool.Worker) int { return k.searchJoin(w, i+1, capacity-it.Weight, value+it.Value) },
		func(w *pool.Worker) int { return k.searchJoin(w, i+1, capacity, value) })
	best := max(with, without)
	k.raise(best)
	return best
}

// knapsackForks is the number of forks KnapsackArgs and KnapsackJoin make
// on one worker, where they search the serial elision's tree: one per
// node that branches.
func knapsackForks(items []Item, capacity int) int64 {
	k := knapsack{items: byRatio(items)}
	var forks int64
	var search func(i, capacity, value int) int
	search = func(i, capacity, value int) int {
		if capacity < 0 {
			return pruned
		}
		if i == len(k.items) || capacity == 0 {
			return value
		}
		it := k.items[i]
		if value+capacity*it.Value/it.Weight <= k.best {
			return pruned
		}
		forks++
		best := max(search(i+1, capacity-it.Weight, value+it.Value), search(i+1, capacity, value))
		k.best = max(k.best, best)
		return best
	}
	search(0, capacity, 0)
	return forks
}

// knapsackDP is the best value by dynamic programming over capacities: an
// independent check of the branch and bound.
func knapsackDP(items []Item, capacity int) int {
	if capacity < 0 {
		return 0
	}
	best := make([]int, capacity+1)
	for _, it := range items {
		for c := capacity; c >= it.Weight; c-- {
			best[c] = max(best[c], best[c-it.Weight]+it.Value)
		}
	}
	return best[capacity]
}
