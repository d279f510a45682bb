package fjvet

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// ignoreDirective starts a comment that silences a finding: the misuse
// is deliberate (a test of the run-time check, a benchmark of what a
// forgotten section costs). It names the rule, so that a comment never
// hides a finding of another rule, and should give the reason:
//
//	v = <-ch //fjvet:ignore blocking the benchmark measures the forgotten section
//
// fileIgnoreDirective does the same for a whole file: one whose subject
// is the misuse (the tests of the stall watch block without sections).
const (
	ignoreDirective     = "//fjvet:ignore "
	fileIgnoreDirective = "//fjvet:file-ignore "
)

// ignores maps a file and line to the rules silenced there; line 0
// stands for the whole file.
type ignores map[string]map[int][]string

// parseIgnores reads the //fjvet:ignore comments of the package's files.
// A comment at the end of a line silences its rules on that line; a
// comment alone on its line, on the next one.
// A //fjvet:file-ignore comment silences its rules in the whole file.
// A directive that names no known rule is itself reported.
func parseIgnores(pass *analysis.Pass) ignores {
	ig := ignores{}
	for _, f := range pass.Files {
		code := codeLines(pass.Fset, f)
		for _, cg := range f.Comments {
			for _, cm := range cg.List {
				rest, ok := strings.CutPrefix(cm.Text, ignoreDirective)
				whole := false
				if !ok {
					rest, whole = strings.CutPrefix(cm.Text, fileIgnoreDirective)
					if !whole {
						continue
					}
				}
				fields := strings.Fields(rest)
				var names []string
				if len(fields) > 0 {
					names = strings.Split(fields[0], ",")
				}
				known := len(names) > 0
				for _, n := range names {
					known = known && slices.Contains(rules, n)
				}
				if !known {
					pass.Report(analysis.Diagnostic{Pos: cm.Pos(), Category: "directive",
						Message: "the directive names no rule: write //fjvet:ignore <rule>[,<rule>] <reason> (or //fjvet:file-ignore), with rules among " + strings.Join(rules, ", ")})
					continue
				}
				p := pass.Fset.Position(cm.Pos())
				lines := ig[p.Filename]
				if lines == nil {
					lines = map[int][]string{}
					ig[p.Filename] = lines
				}
				if whole {
					lines[0] = append(lines[0], names...)
					continue
				}
				line := p.Line + 1
				if col, ok := code[p.Line]; ok && col < p.Column {
					line = p.Line // code before the comment: it ends that line
				}
				lines[line] = append(lines[line], names...)
			}
		}
	}
	return ig
}

// codeLines maps each line of a file that holds code to the column where
// its code starts.
func codeLines(fset *token.FileSet, f *ast.File) map[int]int {
	code := map[int]int{}
	note := func(pos token.Pos) {
		p := fset.Position(pos)
		if c, ok := code[p.Line]; !ok || p.Column < c {
			code[p.Line] = p.Column
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case nil, *ast.Comment, *ast.CommentGroup:
			return false
		}
		note(n.Pos())
		note(n.End() - 1)
		return true
	})
	return code
}

// silenced reports whether a finding of rule at pos is silenced.
func (ig ignores) silenced(fset *token.FileSet, rule string, pos token.Pos) bool {
	p := fset.Position(pos)
	lines := ig[p.Filename]
	return slices.Contains(lines[p.Line], rule) || slices.Contains(lines[0], rule)
}
