package apispec

import (
	"context"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// load parses a document as a client would, its refs read from the same
// embedded files, and validates it.
func load(t *testing.T, name string, data []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, loc *url.URL) ([]byte, error) {
		return Raw(path.Base(loc.Path))
	}
	doc, err := loader.LoadFromDataWithPath(data, &url.URL{Path: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("%s does not validate: %v", name, err)
	}
	return doc
}

func TestDocumentsLoad(t *testing.T) {
	for _, d := range Documents {
		data, err := Raw(d.Name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "../../../../") {
			t.Errorf("%s still refers by repository path", d.Name)
		}
		load(t, d.Name, data)
	}
	if _, err := Raw("../go.mod"); err == nil {
		t.Error("Raw read a file that is no document")
	}
}

// TestServedKeepsRoutedOnly: the cut keeps exactly the routed operations,
// and what is left is still a valid document.
func TestServedKeepsRoutedOnly(t *testing.T) {
	routed := func(method, p string) bool {
		return method == "POST" && p == "/v0/wallet/tap" || method == "GET" && p == "/v0/wallet/balance"
	}
	data, err := Served("wallet-internal.yaml", routed)
	if err != nil {
		t.Fatal(err)
	}
	doc := load(t, "wallet-internal.yaml", data)
	var got []string
	for p, item := range doc.Paths.Map() {
		for m := range item.Operations() {
			got = append(got, m+" "+p)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"GET /v0/wallet/balance", "POST /v0/wallet/tap"}) {
		t.Fatalf("served operations %v, want the two routed", got)
	}
	ops, err := Operations("wallet-internal.yaml", routed)
	if err != nil || len(ops) != 2 || ops[0].Path != "/v0/wallet/balance" || ops[0].OperationID != "getBalance" {
		t.Fatalf("Operations = %+v, %v", ops, err)
	}
}

// TestExtensionsMarked: every operation of ccwallet.yaml says it is ours,
// and the path parameters are found.
func TestExtensionsMarked(t *testing.T) {
	ops, err := Operations("ccwallet.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) < 20 {
		t.Fatalf("only %d extension operations", len(ops))
	}
	for _, op := range ops {
		if !op.Extension || op.OperationID == "" || op.Summary == "" {
			t.Errorf("%s %s: extension %v, id %q, summary %q", op.Method, op.Path, op.Extension, op.OperationID, op.Summary)
		}
		if strings.Contains(op.Path, "{") != (len(op.PathParams) > 0) {
			t.Errorf("%s: path params %v", op.Path, op.PathParams)
		}
	}
	// A spec's own operations are not extensions.
	ops, _ = Operations("wallet-external.yaml", nil)
	for _, op := range ops {
		if op.Extension {
			t.Errorf("%s %s marked as an extension", op.Method, op.Path)
		}
	}
}
