package fjvet_test

import (
	"testing"

	"github.com/forkjoin/fj/fjvet"
	"golang.org/x/tools/go/analysis/analysistest"
)

// The rules' findings and the code they must leave alone, as analyzers
// are tested: testdata is a module that uses the real fj (replace ../..),
// so the cases compile against the API users have; each finding is
// marked by a // want comment on its line, and package correct, which
// has none, is correct use that must produce none.
func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, "testdata", fjvet.Analyzer,
		"./locks", "./escape", "./closeinside", "./spawn", "./ignore", "./correct")
}

// The suggested fixes, against .golden files: a captured worker renamed
// to the function's own (its parameter named when it had none, or
// b.Worker() in a block's body), a blocking statement wrapped in
// pool.Blocking (with its new variables declared before the section).
func TestSuggestedFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, "testdata", fjvet.Analyzer, "./captured", "./blocking")
}
