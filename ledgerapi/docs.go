package ledgerapi

import (
	"net/http"
	"sync"

	"github.com/ccwallet/ccwallet/apispec"
)

// openAPI answers GET /docs/openapi, as Canton's JSON API does: the spec
// this server conforms to, cut down to the operations mux routes, so a
// client generated from it calls nothing that answers 501. Public, like
// Canton's: the document holds no data.
func (s *Server) openAPI(mux *http.ServeMux) http.Handler {
	// The mux is complete by the first request; the cut is made once.
	doc := sync.OnceValues(func() ([]byte, error) {
		return apispec.Served("ledger-api-v2.yaml", apispec.MuxRouted(mux))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := doc()
		if err != nil {
			s.log.ErrorContext(r.Context(), "openapi document", "err", err)
			http.Error(w, "the OpenAPI document could not be built", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(data)
	})
}
