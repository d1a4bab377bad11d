package main

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/store/pgtest"
)

// TestHealthReflectsDatabase stops the database under a running server:
// /readyz on the health port turns 503 naming the database, /livez stays
// 200, and readiness returns when the database does.
func TestHealthReflectsDatabase(t *testing.T) {
	c, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	s := startServe(t, nil, []string{"WALLET_DATABASE_URL=" + c.URL("postgres")})
	health := "http://" + s.addrs.Health
	probe := func(path string) (int, string) {
		resp, err := plain.Get(health + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		return resp.StatusCode, b.String()
	}
	if code, body := probe("/readyz"); code != 200 {
		t.Fatalf("/readyz = %d %s, want 200", code, body)
	}
	if err := c.StopServer(); err != nil {
		t.Fatal(err)
	}
	// The first probe finds the pooled connection broken; the next ones
	// fail to connect, with an error naming the user, database and host.
	u, _ := url.Parse(c.URL("postgres"))
	for range 3 {
		code, body := probe("/readyz")
		if code != 503 || !strings.Contains(body, "database") {
			t.Errorf("/readyz with the database down = %d %s, want 503 naming the database", code, body)
		}
		if strings.Contains(body, u.Hostname()) || strings.Contains(body, "user=") || strings.Contains(body, u.User.Username()) {
			// The probe is unauthenticated: connection details go to the log.
			t.Errorf("/readyz with the database down shows connection details: %s", body)
		}
	}
	if code, _ := probe("/livez"); code != 200 {
		t.Errorf("/livez with the database down = %d, want 200", code)
	}
	if err := c.StartServer(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, body := probe("/readyz"); code != 200 {
		t.Errorf("/readyz after the database returned = %d %s, want 200", code, body)
	}
}

// TestOutboundProxy checks the JWKS/OIDC client goes through HTTPS_PROXY
// and honours NO_PROXY. Go reads the proxy variables once per process, so
// each case runs the test binary again with its own environment.
func TestOutboundProxy(t *testing.T) {
	if target := os.Getenv("CCWALLET_PROXY_TEST_URL"); target != "" {
		resp, err := outboundClient().Get(target)
		if err == nil {
			resp.Body.Close()
		}
		return
	}
	tests := []struct {
		name      string
		noProxy   string
		wantProxy bool
	}{
		{"through the proxy", "", true},
		{"NO_PROXY excludes the host", "idp.example.invalid", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := make(chan string, 4)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen <- r.Method + " " + r.Host
				http.Error(w, "no upstream in tests", http.StatusBadGateway)
			})}
			go proxy.Serve(ln)
			t.Cleanup(func() { proxy.Shutdown(context.Background()) })

			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestOutboundProxy$")
			cmd.Env = append(os.Environ(), "CCWALLET_PROXY_TEST_URL=https://idp.example.invalid/.well-known/jwks.json",
				"HTTPS_PROXY=http://"+ln.Addr().String(), "NO_PROXY="+tt.noProxy)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var got string
			select {
			case got = <-seen:
			default:
			}
			if want := "CONNECT idp.example.invalid:443"; tt.wantProxy && got != want {
				t.Errorf("proxy saw %q, want %q", got, want)
			}
			if !tt.wantProxy && got != "" {
				t.Errorf("proxy saw %q, want no request", got)
			}
		})
	}
}
