// Command fjvet reports misuse of the fj fork/join library that the
// compiler accepts: a captured *pool.Worker, a blocking call in a task
// outside pool.Blocking, a lock held across a join, a task block that
// escapes its Define, Close from inside a pool's task, a Spawn never
// joined. The rules, and what each cannot see, are in the documentation
// of package github.com/forkjoin/fj/fjvet.
//
// Run it through go vet, which builds and type-checks the packages:
//
//	go vet -vettool=$(command -v fjvet) ./...
//
// or on its own, with the flags of a go/analysis checker (-fix applies
// the suggested fixes, -diff shows them):
//
//	fjvet ./...
package main

import (
	"github.com/forkjoin/fj/fjvet"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() { singlechecker.Main(fjvet.Analyzer) }
