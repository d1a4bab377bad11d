package deploy

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// wallet is the ccwallet binary built once for the package's tests.
var wallet string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ccwallet-deploy-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wallet = filepath.Join(dir, "ccwallet")
	// With go's default settings, as the test binaries of the other
	// packages and e2e build it: the packages compiled for them are
	// reused. CGO_ENABLED=0 here made every package's build ID differ
	// (net's cgo choice reaches them all), a second compile of the whole
	// wallet on a fresh clone; the static binary is deploy/image's, and
	// its test runs it.
	cmd := exec.Command("go", "build", "-o", wallet, "../cmd/ccwallet")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build ccwallet: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// configCheck runs `ccwallet config check` with exactly env (no other
// variables) and the given flags; it returns the output and whether the
// configuration was accepted. It runs offline: the examples name
// providers (acme.eu.auth0.com) no test can reach.
func configCheck(t *testing.T, env []string, flags ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(wallet, append([]string{"config", "check", "--offline"}, flags...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("run ccwallet: %v", err)
	}
	return string(out), err == nil
}

// selfSigned writes a PKCS#8 key and a self-signed certificate, as an
// operator's TLS Secret would hold them.
func selfSigned(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ccwallet"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"ccwallet"},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8})
}

// helmVersion is the pinned helm the chart tests run.
const helmVersion = "helm.sh/helm/v3/cmd/helm@v3.22.0"

// helmBin is helmVersion's executable, found once for the package: `go
// run -exec echo` builds it (the first time on a machine, minutes) or
// finds it in Go's build cache, which keeps executables that go run
// built, and prints its path; a copy in the test's directory is then run
// directly. Each `go run` of helm had checked every one of helm's packages
// for staleness again: 5-7 s a call on a loaded 2-core machine, against
// milliseconds for the binary.
//
// The run that builds helm prints the path in its own work directory,
// which go run removes as it exits (the executable is in the cache by
// then): a path gone when read is asked for once more, from the cache.
var helmBin = sync.OnceValues(func() (string, error) {
	var b []byte
	for attempt := 0; ; attempt++ {
		cmd := exec.Command("go", "run", "-exec", "echo", helmVersion)
		cmd.Dir = "helm"
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%v\n%s", err, out)
		}
		b, err = os.ReadFile(strings.TrimSpace(string(out)))
		if errors.Is(err, fs.ErrNotExist) && attempt == 0 {
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	bin := filepath.Join(filepath.Dir(wallet), "helm")
	return bin, os.WriteFile(bin, b, 0o755)
})

// helm runs the pinned helm (built once; the first build on a fresh
// machine takes minutes) in deploy/helm.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin, err := helmBin()
	if err != nil {
		t.Fatalf("helm could not be built with `go run %s` "+
			"(needs the Go module proxy once, then the build cache): %v", helmVersion, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = "helm"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil && !strings.Contains(stderr.String(), "Error:") {
		// Not helm refusing the chart: helm itself could not run.
		t.Fatalf("helm could not run: %v\n%s", err, stderr.String())
	}
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}
