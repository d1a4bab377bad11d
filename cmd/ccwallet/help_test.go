package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"strconv"
	"strings"
	"testing"
)

// commandNames lists the commands run dispatches on, read from its switch
// in main.go, so a command added there and not to the usage fails
// TestHelpListsEveryCommand.
func commandNames(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(gotoken.NewFileSet(), "main.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "run" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == gotoken.STRING {
						name, _ := strconv.Unquote(lit.Value)
						names = append(names, name)
					}
				}
			}
			return true
		})
	}
	if len(names) < 5 {
		t.Fatalf("found only commands %v in run", names)
	}
	return names
}

// TestHelpListsEveryCommand: `ccwallet help`, `--help` and `-h` list every
// command, one line each, and not the server's flags alone.
func TestHelpListsEveryCommand(t *testing.T) {
	names := commandNames(t)
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"-help"}} {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), args, nil, &out, &errOut); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		got := out.String()
		for _, name := range names {
			lines := 0
			for _, l := range strings.Split(got, "\n") {
				if strings.HasPrefix(l, "  ccwallet "+name+" ") || strings.HasPrefix(l, "  ccwallet ["+name+"] ") {
					lines++
				}
			}
			// config has two (check, print); every other command one.
			if lines == 0 || (lines > 1 && name != "config") {
				t.Errorf("%v: command %q on %d lines of the usage:\n%s", args, name, lines, got)
			}
		}
		if strings.Contains(got, "-listen") || errOut.Len() > 0 {
			t.Errorf("%v printed the server's flags:\n%s%s", args, got, errOut.String())
		}
	}
}

// TestHelpCommand: `ccwallet help COMMAND` is `ccwallet COMMAND --help`.
func TestHelpCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"help", "devnet"}, nil, &out, &errOut); err != nil || !strings.Contains(out.String(), "ccwallet devnet restore NAME") {
		t.Errorf("help devnet = %v:\n%s", err, out.String())
	}
	out.Reset()
	err := run(t.Context(), []string{"help", "serve"}, nil, &out, &errOut)
	if err == nil || !strings.Contains(errOut.String(), "-listen") {
		t.Errorf("help serve = %v; want the serve flags (flag.ErrHelp):\n%s", err, errOut.String())
	}
}
