package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// TestImageReproducible builds the image twice from the same source and
// checks the digests and the archives are equal, then reads the image back
// from the archive: non-root, the three ports, the labels, and a static
// binary that runs and reports the labelled version.
func TestImageReproducible(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := Options{Root: root, Version: "v9.9.9-test", Revision: "0123456789abcdef", Source: repoURL,
		Epoch: time.Unix(1764000000, 0).UTC(), Arch: runtime.GOARCH}
	var digests []string
	var archives [][]byte
	for _, name := range []string{"a.tar", "b.tar"} {
		o.Out = filepath.Join(dir, name)
		d, err := Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(o.Out)
		if err != nil {
			t.Fatal(err)
		}
		digests, archives = append(digests, d), append(archives, b)
	}
	if digests[0] != digests[1] {
		t.Fatalf("same source, different digests: %s and %s", digests[0], digests[1])
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Fatal("same source, different archives")
	}

	// Read the image back from the archive as a consumer would.
	lay := filepath.Join(dir, "layout")
	untar(t, archives[0], lay)
	p, err := layout.FromPath(lay)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest.String() != digests[0] {
		t.Fatalf("index.json: %+v, want the one image %s", im.Manifests, digests[0])
	}
	if got := im.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != "ccwallet:v9.9.9-test" {
		t.Errorf("ref.name = %q", got)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	mt, _ := img.MediaType()
	if !strings.Contains(string(mt), "oci") {
		t.Errorf("manifest media type %s, want OCI", mt)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", c.User)
	}
	var ports []string
	for p := range c.ExposedPorts {
		ports = append(ports, p)
	}
	slices.Sort(ports)
	if want := []string{"10013/tcp", "5003/tcp", "7575/tcp", "8080/tcp"}; !slices.Equal(ports, want) {
		t.Errorf("exposed ports %v, want %v", ports, want)
	}
	if got := append(slices.Clone(c.Entrypoint), c.Cmd...); !slices.Equal(got, []string{binPath, "serve"}) {
		t.Errorf("entrypoint+cmd %v, want ccwallet serve", got)
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  "v9.9.9-test",
		"org.opencontainers.image.revision": "0123456789abcdef",
		"org.opencontainers.image.source":   repoURL,
	} {
		if c.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	if !cf.Created.Time.Equal(o.Epoch) {
		t.Errorf("created %v, want the epoch %v", cf.Created.Time, o.Epoch)
	}

	// The layer: fixed times, the binary static and runnable.
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var exe []byte
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(o.Epoch) {
			t.Errorf("%s: time %v, want the epoch", h.Name, h.ModTime)
		}
		if h.Name == strings.TrimPrefix(binPath, "/") {
			exe, _ = io.ReadAll(tr)
		}
	}
	if exe == nil {
		t.Fatal("no binary in the layer")
	}
	ef, err := elf.NewFile(bytes.NewReader(exe))
	if err != nil {
		t.Fatal(err)
	}
	for _, prog := range ef.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Fatal("the binary is dynamically linked (has an interpreter); it cannot run on an empty base")
		}
	}
	// The empty base has no /etc/ssl: the roots must be in the binary, or
	// JWKS and OpenID requests fail.
	if !bytes.Contains(exe, []byte("golang.org/x/crypto/x509roots/fallback")) {
		t.Error("the binary has no fallback root certificates")
	}
	bin := filepath.Join(dir, "ccwallet")
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ccwallet v9.9.9-test" {
		t.Fatalf("ccwallet version: %q, %v", out, err)
	}
}

func untar(t *testing.T, b []byte, dir string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		body, _ := io.ReadAll(tr)
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
