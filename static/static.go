// Package static embeds the web wallet's browser assets and serves them
// under content-hash URLs with long cache lifetimes. Nothing is built:
// htmx.min.js is htmx 2.0.11 (npm htmx.org@2.0.11, dist/htmx.min.js),
// copied as is; app.css, app.js and favicon.svg are ours.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/ccwallet/ccwallet/web"
)

//go:embed *.js *.css *.svg
var files embed.FS

// Prefix is the URL path the assets are served under.
const Prefix = "/static/"

var hashes = func() map[string]string {
	m := map[string]string{}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		b, _ := files.ReadFile(e.Name())
		sum := sha256.Sum256(b)
		m[e.Name()] = hex.EncodeToString(sum[:6])
	}
	return m
}()

// URL returns the content-hash URL of an asset: /static/<hash>/<name>. A
// new build with changed content gets a new URL, so the old one can be
// cached forever.
func URL(name string) string {
	return Prefix + hashes[name] + "/" + name
}

// Redirect answers a fixed URL that browsers ask for on their own (such as
// /favicon.ico) with a redirect to the asset's content-hash URL. It is
// temporary and cached for a day, since the target changes with the file.
func Redirect(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.Redirect(w, r, URL(name), http.StatusFound)
	})
}

// Handler serves /static/<hash>/<name>. A matching hash is cached for a
// year as immutable; a stale hash still gets the current file, uncached.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, Prefix)
		hash, name, ok := strings.Cut(rest, "/")
		want, known := hashes[name]
		if !ok || !known || path.Base(name) != name {
			// As every unrouted path of the app: JSON, not Go's plain text.
			web.WriteError(w, http.StatusNotFound, "no such asset: "+r.URL.Path)
			return
		}
		if hash == want {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		http.ServeFileFS(w, r, files, name)
	})
}
