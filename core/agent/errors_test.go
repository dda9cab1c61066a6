package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestErrorVocabularyIsUsed: every exported Err* of the package is
// returned or wrapped somewhere outside its declaration; a kind declared
// and never used promises callers an errors.Is that never matches.
func TestErrorVocabularyIsUsed(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	uses := map[string]int{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for _, name := range n.Names {
						if strings.HasPrefix(name.Name, "Err") {
							declared[name.Name] = true
						}
					}
				case *ast.Ident:
					uses[n.Name]++
				}
				return true
			})
		}
	}
	for name := range declared {
		if uses[name] < 2 { // the declaration itself is one
			t.Errorf("%s is declared but never used", name)
		}
	}
}
