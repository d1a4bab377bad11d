package web

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// compressedTypes are the responses Compress compresses: the web wallet's
// pages and fragments, its stylesheet and scripts. JSON APIs, CSV exports
// and server-sent events go out as they are.
var compressedTypes = []string{"text/html", "text/css", "text/javascript", "application/javascript"}

var compressWrapper = func() func(http.Handler) http.HandlerFunc {
	w, err := gzhttp.NewWrapper(gzhttp.ContentTypes(compressedTypes))
	if err != nil {
		panic("web: gzhttp options: " + err.Error()) // fixed options: a programming error
	}
	return w
}()

// Compress compresses HTML, CSS and JavaScript responses with the best
// encoding the client accepts (zstd or gzip, by Accept-Encoding; none
// when it accepts neither) and adds Vary: Accept-Encoding. Small bodies
// (under 1 KB) are sent as they are.
//
// A request with an Authorization header, an API call (the web wallet's
// pages, fragments and assets go by cookie), is never wrapped: its
// answers are JSON or CSV, which the list leaves plain, and the wrapper
// cost 4% of the wallet's CPU per one-step send for nothing (a pooled
// writer, the Vary header, its close; the shipped binary's profile). Nor
// is a request with a JSON body, an API call without a token (the
// registry's transfer factory, which every token-standard transfer asks
// first): its answer is JSON too.
//
// A server-sent events request (Accept: text/event-stream, as EventSource
// sends) is never wrapped: the compressing writer holds back the headers
// until the first bytes, so a stream must reach the client untouched and
// flush as written. Any other event stream still streams, because its
// content type is not in the list and its first flush sends it plain.
func Compress(next http.Handler) http.Handler {
	compressed := compressWrapper(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") ||
			strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			next.ServeHTTP(w, r)
			return
		}
		compressed.ServeHTTP(w, r)
	})
}
