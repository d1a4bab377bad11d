package ledgerapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPIDocument: GET /docs/openapi answers, without a token as
// Canton's does, a valid document of exactly the operations this server
// routes: each answers something other than 501, and the identity
// provider operations it does not serve are left out.
func TestOpenAPIDocument(t *testing.T) {
	e := newEnv(t, 0)
	u, _ := url.Parse(e.url + "/docs/openapi")
	doc, err := openapi3.NewLoader().LoadFromURI(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("served document does not validate: %v", err)
	}
	if doc.Paths.Find("/v2/commands/submit-and-wait") == nil || doc.Paths.Find("/v2/idps") != nil {
		t.Fatalf("served paths: %v", doc.Paths.InMatchingOrder())
	}
	for p, item := range doc.Paths.Map() {
		for m := range item.Operations() {
			req, _ := http.NewRequest(m, e.url+strings.NewReplacer("{", "", "}", "").Replace(p), nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode == http.StatusNotImplemented {
				t.Errorf("%s %s is in the document but answers 501", m, p)
			}
		}
	}
}
