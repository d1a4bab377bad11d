package web

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCompress(t *testing.T) {
	page := "<!DOCTYPE html><p>" + strings.Repeat("holding row ", 500) + "</p>"
	serve := func(ctype, body string) http.Handler {
		return Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			_, _ = io.WriteString(w, body)
		}))
	}
	tests := []struct {
		name     string
		ctype    string
		body     string
		accept   string
		encoding string
	}{
		{"html, gzip accepted", "text/html; charset=utf-8", page, "gzip", "gzip"},
		{"css, gzip accepted", "text/css; charset=utf-8", page, "gzip, deflate", "gzip"},
		{"javascript, gzip accepted", "text/javascript; charset=utf-8", page, "gzip", "gzip"},
		{"html, zstd preferred", "text/html; charset=utf-8", page, "gzip, zstd", "zstd"},
		{"html, nothing accepted", "text/html; charset=utf-8", page, "", ""},
		{"html, gzip refused", "text/html; charset=utf-8", page, "gzip;q=0", ""},
		{"small html", "text/html; charset=utf-8", "<p>hi</p>", "gzip", ""},
		{"json", "application/json", `{"a":"` + strings.Repeat("x", 4000) + `"}`, "gzip", ""},
		{"csv", "text/csv", strings.Repeat("a,b\n", 1000), "gzip", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.accept != "" {
				r.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			serve(tt.ctype, tt.body).ServeHTTP(rec, r)
			if got := rec.Header().Get("Content-Encoding"); got != tt.encoding {
				t.Fatalf("Content-Encoding %q, want %q", got, tt.encoding)
			}
			if !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary %q lacks Accept-Encoding", rec.Header().Get("Vary"))
			}
			got := rec.Body.String()
			if tt.encoding == "gzip" {
				zr, err := gzip.NewReader(rec.Body)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Body.Len() >= len(tt.body)/4 {
					t.Errorf("compressed to %d of %d bytes", rec.Body.Len(), len(tt.body))
				}
				got = string(b)
			}
			if tt.encoding != "zstd" && got != tt.body {
				t.Errorf("body %.100q, want %.100q", got, tt.body)
			}
		})
	}
}

// TestCompressLeavesAPICallsAlone: a call with a token or a JSON body
// (the registry's transfer factory) is an API call, answered in JSON,
// and never goes through the compressing writer (its Vary header marks
// one that did).
func TestCompressLeavesAPICallsAlone(t *testing.T) {
	h := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"factoryId":"`+strings.Repeat("x", 4000)+`"}`)
	}))
	for name, header := range map[string][2]string{
		"token":     {"Authorization", "Bearer t"},
		"JSON body": {"Content-Type", "application/json; charset=utf-8"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/registry/transfer-instruction/v1/transfer-factory", strings.NewReader("{}"))
		r.Header.Set("Accept-Encoding", "gzip")
		r.Header.Set(header[0], header[1])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if v := rec.Header().Get("Vary"); v != "" {
			t.Errorf("%s: Vary %q: the call went through the compressing writer", name, v)
		}
	}
}

// TestCompressStreamsEvents: a server-sent events stream behind Compress
// reaches the client event by event, uncompressed, whether or not the
// client says it wants an event stream.
func TestCompressStreamsEvents(t *testing.T) {
	next := make(chan struct{})
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for i := range 2 {
			_, _ = io.WriteString(w, "data: "+strings.Repeat("x", 10*i)+"\n\n")
			if err := rc.Flush(); err != nil {
				t.Errorf("flush: %v", err)
				return
			}
			<-next
		}
	}), RequestID, Logger(discardLogger()), Recover(discardLogger()), SecurityHeaders, Compress)
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, accept := range []string{"text/event-stream", ""} {
		t.Run("accept "+accept, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if ce := res.Header.Get("Content-Encoding"); ce != "" {
				t.Errorf("event stream sent with Content-Encoding %q", ce)
			}
			line := make(chan string)
			go func() {
				s, _ := bufio.NewReader(res.Body).ReadString('\n')
				line <- s
			}()
			select {
			case s := <-line:
				if s != "data: \n" {
					t.Errorf("first line %q", s)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("first event not flushed to the client")
			}
			next <- struct{}{}
			next <- struct{}{}
		})
	}
}

// TestCompressSkipsAPICalls: a request with an Authorization header (an
// API call) reaches its handler unwrapped, so even HTML goes plain and no
// Vary is added; the same request by cookie is compressed.
func TestCompressSkipsAPICalls(t *testing.T) {
	page := "<!DOCTYPE html><p>" + strings.Repeat("holding row ", 500) + "</p>"
	var wrapped bool
	h := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, plain := w.(*httptest.ResponseRecorder)
		wrapped = !plain
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	}))
	for _, auth := range []string{"Bearer x.y.z", ""} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		enc, vary := rec.Header().Get("Content-Encoding"), rec.Header().Get("Vary")
		if auth != "" && (wrapped || enc != "" || vary != "" || rec.Body.String() != page) {
			t.Errorf("with Authorization: wrapped %v, Content-Encoding %q, Vary %q; want it untouched", wrapped, enc, vary)
		}
		if auth == "" && (!wrapped || enc != "gzip") {
			t.Errorf("by cookie: wrapped %v, Content-Encoding %q; want gzip", wrapped, enc)
		}
	}
}
