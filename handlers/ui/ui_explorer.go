package ui

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/ccwallet/ccwallet/apispec"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiExplorer renders GET /api-explorer: the operations of every document
// the app serves (api_docs.go), each with a form that sends it as the
// session's user (api_session.go) and a curl line.
func (h *Handler) uiExplorer(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	ops, err := h.operations()
	if err != nil {
		return err
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	m := views.Explorer{Page: h.page(s, "API explorer", "api"), Origin: scheme + "://" + r.Host}
	for _, d := range apispec.Documents {
		if d.On != apispec.App {
			continue
		}
		doc := views.ExplorerDoc{Name: d.Name, Title: d.Title, URL: "/openapi/" + d.Name}
		prefix := strings.TrimSuffix(d.Name, ".yaml")
		for _, op := range ops[d.Name] {
			id := op.OperationID
			if id == "" {
				id = op.Method + op.Path
			}
			doc.Ops = append(doc.Ops, views.ExplorerOp{
				ID: prefix + "-" + htmlID.ReplaceAllString(id, "-"), Method: op.Method, Path: op.Path, Summary: op.Summary,
				PathParams: op.PathParams, Query: op.Query, HasBody: op.HasBody, Extension: op.Extension,
			})
		}
		m.Docs = append(m.Docs, doc)
	}
	return render(w, r, http.StatusOK, views.ExplorerPage(m))
}

// htmlID keeps what is safe in an id attribute and a CSS selector.
var htmlID = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
