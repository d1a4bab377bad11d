package web

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// The NUL character has no place in any field of ours, and Postgres text
// cannot hold it: a request carrying one would fail deep inside a
// transaction. It is refused up front with 400 instead, wherever text
// enters: the path, the query, a form body (RejectNUL), a JSON body
// (DecodeJSONLimit) and a token's subject (Verifier).
const nulMessage = "text must not contain the NUL character (U+0000)"

// RejectNUL answers 400 to a request whose path, query or URL-encoded form
// body holds a NUL character. It parses such a form itself; the handler's
// ParseForm then finds it parsed.
func RejectNUL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bad := strings.IndexByte(r.URL.Path, 0) >= 0
		if !bad && strings.Contains(r.URL.RawQuery, "%00") {
			q, _ := url.ParseQuery(r.URL.RawQuery)
			bad = valuesHaveNUL(q)
		}
		if !bad && r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			if err := r.ParseForm(); err == nil {
				bad = valuesHaveNUL(r.PostForm)
			}
		}
		if bad {
			WriteError(w, http.StatusBadRequest, nulMessage)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func valuesHaveNUL(vs url.Values) bool {
	for k, list := range vs {
		if strings.IndexByte(k, 0) >= 0 {
			return true
		}
		for _, v := range list {
			if strings.IndexByte(v, 0) >= 0 {
				return true
			}
		}
	}
	return false
}

// hasNUL reports whether any string reachable from v holds a NUL.
func hasNUL(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.IndexByte(v.String(), 0) >= 0
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasNUL(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && hasNUL(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false // bytes, not text
		}
		for i := range v.Len() {
			if hasNUL(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if hasNUL(it.Key()) || hasNUL(it.Value()) {
				return true
			}
		}
	}
	return false
}
