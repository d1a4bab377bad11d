package api

import (
	"net/http"
	"sync"

	"github.com/ccwallet/ccwallet/apispec"
	"github.com/ccwallet/ccwallet/web"
)

// The OpenAPI documents the app conforms to (package apispec), each cut
// down to the operations this build routes, so a generated client or the
// API explorer never meets an operation that answers "no such endpoint".
// Public: they describe, they hold no data.

// apiDocs is the documents as served, built on first use (the mux is
// complete by then) and kept: routes do not change while serving.
type apiDocs struct {
	once sync.Once
	mux  *http.ServeMux
	docs map[string][]byte
	ops  map[string][]apispec.Operation
	err  error
}

func (d *apiDocs) build() error {
	d.once.Do(func() {
		d.docs, d.ops = map[string][]byte{}, map[string][]apispec.Operation{}
		routed := apispec.MuxRouted(d.mux)
		for _, doc := range apispec.Documents {
			if doc.On != apispec.App {
				continue
			}
			if d.docs[doc.Name], d.err = apispec.Served(doc.Name, routed); d.err != nil {
				return
			}
			if d.ops[doc.Name], d.err = apispec.Operations(doc.Name, routed); d.err != nil {
				return
			}
		}
	})
	return d.err
}

type apiDocumentDTO struct {
	apispec.Document
	URL string `json:"url"`
}

// listAPIDocs answers GET /openapi: the documents, where to fetch each.
func (h *Handler) listAPIDocs(w http.ResponseWriter, r *http.Request) error {
	out := make([]apiDocumentDTO, 0, len(apispec.Documents))
	for _, d := range apispec.Documents {
		u := "/openapi/" + d.Name
		if d.On == apispec.LedgerAPI {
			u = "/docs/openapi" // on the Ledger API's own listener (ledgerApiListen)
		}
		out = append(out, apiDocumentDTO{Document: d, URL: u})
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"documents": out})
}

// getAPIDoc answers GET /openapi/{name}: the document as YAML, its refs
// relative, so a loader fetching it here resolves them here too.
func (h *Handler) getAPIDoc(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if name == "ledger-api-v2.yaml" {
		return notFound("the JSON Ledger API's document is served on its own listener (ledgerApiListen) at /docs/openapi")
	}
	if !apispec.Known(name) {
		return notFound("no OpenAPI document " + name + "; GET /openapi lists them")
	}
	if err := h.docs.build(); err != nil {
		return err
	}
	data, ok := h.docs.docs[name]
	if !ok { // a document others refer to: whole
		var err error
		if data, err = apispec.Raw(name); err != nil {
			return err
		}
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := w.Write(data)
	return err
}
