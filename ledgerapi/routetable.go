package ledgerapi

import (
	"net/http"
	"strings"
)

// routeTable is the Ledger API's mux, keeping the patterns registered on
// it: the 501 answer's list of what is supported comes from the routes
// themselves, never from a second list kept by hand.
type routeTable struct {
	*http.ServeMux
	patterns []string
	streams  []string // the WebSocket streams' paths (ledgerapi/streams)
}

// HandleStream registers a WebSocket stream at GET path.
func (t *routeTable) HandleStream(path string, handler http.Handler) {
	t.ServeMux.Handle("GET "+path, handler)
	t.streams = append(t.streams, path)
}

// Handle registers handler for pattern and keeps the pattern.
func (t *routeTable) Handle(pattern string, handler http.Handler) {
	t.ServeMux.Handle(pattern, handler)
	t.patterns = append(t.patterns, pattern)
}

// supported lists the routes of the Ledger API (/v2), each path once with
// its methods ("GET|POST /v2/parties"), in the table's order; submitting
// commands names the commands a submission may be.
func (t *routeTable) supported() string {
	var paths []string
	methods := map[string][]string{}
	for _, p := range t.patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok || !strings.HasPrefix(path, "/v2/") {
			continue
		}
		if methods[path] == nil {
			paths = append(paths, path)
		}
		methods[path] = append(methods[path], method)
	}
	out := make([]string, 0, len(paths))
	for _, path := range paths {
		route := strings.Join(methods[path], "|") + " " + path
		if path == "/v2/commands/submit-and-wait" {
			route += " (" + supportedCommands + ")"
		}
		out = append(out, route)
	}
	if len(t.streams) > 0 {
		out = append(out, "WebSocket "+strings.Join(t.streams, ", "))
	}
	return strings.Join(out, ", ")
}
