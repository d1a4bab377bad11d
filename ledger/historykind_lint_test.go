package ledger_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryKindsNamedOnce: every history row's kind is one of
// ledger.HistoryKind's constants (historykind.go), never a string written
// where a row is recorded (record, recordPair, Tx.Record, Tx.RecordPair)
// nor converted to a HistoryKind elsewhere in the ledger and its
// workflow packages.
func TestHistoryKindsNamedOnce(t *testing.T) {
	kindArg := map[string]int{"record": 1, "Record": 1, "recordPair": 2, "RecordPair": 2}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Base(path) == "historykind.go" {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			lit := func(e ast.Expr) bool { b, ok := e.(*ast.BasicLit); return ok && b.Kind == token.STRING }
			if i, ok := kindArg[name]; ok && len(call.Args) > i && lit(call.Args[i]) {
				t.Errorf("%s: %s records a history kind written as a string; use a HistoryKind constant", fset.Position(call.Pos()), name)
			}
			if name == "HistoryKind" && len(call.Args) == 1 && lit(call.Args[0]) {
				t.Errorf("%s: a history kind converted from a string; use a HistoryKind constant", fset.Position(call.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
