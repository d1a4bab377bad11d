// Command image builds ccwallet's container image without Docker: the
// static binary on an empty base, written as an OCI image layout in a tar
// file (an "oci-archive", which podman, skopeo, crane and docker load).
//
// The build is reproducible: the binary is built with -trimpath and fixed
// -ldflags, every file and the image config carry the --epoch timestamp
// (SOURCE_DATE_EPOCH, by default the last commit's time), so the same
// source gives the same digest.
//
//	go run ./deploy/image --version v1.2.3 --out bin/ccwallet-image.tar
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts. The ports are documentation (ExposedPorts);
// the wallet's listen keys decide what is served.
const (
	binPath = "/usr/local/bin/ccwallet"
	dataDir = "/var/lib/ccwallet"
	uid     = 65532 // "nonroot", as distroless images
	repoURL = "https://github.com/ccwallet/ccwallet"
)

var exposedPorts = []string{"8080/tcp", "5003/tcp", "10013/tcp", "7575/tcp"}

// Options are the build's inputs; equal options on equal source give an
// equal digest.
type Options struct {
	Root     string // repository root (holds go.mod)
	Version  string // main.version and the version label
	Revision string // the commit, for the revision label
	Source   string // the source label
	Epoch    time.Time
	Arch     string // GOARCH
	Tag      string // the name recorded in the archive (ref.name)
	Out      string // the .tar to write
}

func main() {
	o := Options{}
	var epoch int64
	flag.StringVar(&o.Version, "version", "dev", "version: main.version and the org.opencontainers.image.version label")
	flag.StringVar(&o.Revision, "revision", "", "commit of the source (org.opencontainers.image.revision)")
	flag.StringVar(&o.Source, "source", repoURL, "source repository (org.opencontainers.image.source)")
	flag.Int64Var(&epoch, "epoch", envEpoch(), "timestamp of every file and of the image, in Unix seconds (default $SOURCE_DATE_EPOCH, else 0)")
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "target architecture (GOARCH)")
	flag.StringVar(&o.Tag, "tag", "", "image name recorded in the archive (default ccwallet:<version>)")
	flag.StringVar(&o.Out, "out", "bin/ccwallet-image.tar", "OCI archive to write")
	flag.Parse()
	o.Epoch = time.Unix(epoch, 0).UTC()
	root, err := repoRoot()
	if err == nil {
		o.Root = root
		var digest string
		digest, err = Build(context.Background(), o)
		if err == nil {
			fmt.Printf("%s %s -> %s\n", o.tag(), digest, o.Out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func envEpoch() int64 {
	n, _ := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	return n
}

func (o Options) tag() string {
	if o.Tag != "" {
		return o.Tag
	}
	return "ccwallet:" + o.Version
}

// repoRoot is the directory of the main module's go.mod.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run inside the ccwallet repository (no go.mod found)")
	}
	return filepath.Dir(mod), nil
}

// Build compiles the binary, assembles the image, writes o.Out and returns
// the image's manifest digest.
func Build(ctx context.Context, o Options) (string, error) {
	tmp, err := os.MkdirTemp("", "ccwallet-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "ccwallet")
	if err := buildBinary(ctx, o, bin, tmp); err != nil {
		return "", err
	}
	img, err := Image(o, bin)
	if err != nil {
		return "", err
	}
	digest, err := img.Digest()
	if err != nil {
		return "", err
	}
	if err := writeArchive(img, o, filepath.Join(tmp, "layout")); err != nil {
		return "", err
	}
	return digest.String(), nil
}

// rootsFile adds the Mozilla CA bundle to the image's binary (the empty
// base has no /etc/ssl), used only when the system has no roots, so a
// mounted bundle still wins. It is added through -overlay, not committed to
// cmd/ccwallet, so other builds are unchanged.
const rootsFile = `package main

import _ "golang.org/x/crypto/x509roots/fallback"
`

// buildBinary is a static, reproducible go build of ./cmd/ccwallet.
func buildBinary(ctx context.Context, o Options, out, tmp string) error {
	roots := filepath.Join(tmp, "roots.go")
	if err := os.WriteFile(roots, []byte(rootsFile), 0o644); err != nil {
		return err
	}
	overlay := filepath.Join(tmp, "overlay.json")
	target := filepath.Join(o.Root, "cmd", "ccwallet", "zz_image_roots.go")
	if err := os.WriteFile(overlay, []byte(fmt.Sprintf(`{"Replace":{%q:%q}}`, target, roots)), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-overlay", overlay,
		"-ldflags", "-s -w -buildid= -X main.version="+o.Version, "-o", out, "./cmd/ccwallet")
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.Arch, "GOFLAGS=-mod=readonly")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, b)
	}
	return nil
}

// Image assembles the image around the binary at bin.
func Image(o Options, bin string) (v1.Image, error) {
	layerTar, err := rootFS(bin, o.Epoch)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Epoch}
	labels := map[string]string{
		"org.opencontainers.image.title":       "ccwallet",
		"org.opencontainers.image.description": "Self-hostable validator wallet for the network's coin",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.created":     o.Epoch.Format(time.RFC3339),
	}
	ports := map[string]struct{}{}
	for _, p := range exposedPorts {
		ports[p] = struct{}{}
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.ConfigFile(base, &v1.ConfigFile{
		Architecture: o.Arch,
		OS:           "linux",
		Created:      created,
		Config: v1.Config{
			User:         fmt.Sprintf("%d:%d", uid, uid),
			Entrypoint:   []string{binPath},
			Cmd:          []string{"serve"},
			WorkingDir:   dataDir,
			Env:          []string{"PATH=/usr/local/bin"},
			ExposedPorts: ports,
			Labels:       labels,
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: created, CreatedBy: "deploy/image: ccwallet " + o.Version, Comment: "static binary, non-root user"},
	})
	if err != nil {
		return nil, err
	}
	return img, nil
}

// rootFS is the single layer: the binary, a passwd/group naming the
// non-root user, /tmp and the working directory the user may write to.
// Every entry has the epoch as its time and fixed owners.
func rootFS(bin string, epoch time.Time) ([]byte, error) {
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	type entry struct {
		name  string
		mode  int64
		owner int
		body  []byte
		isDir bool
	}
	entries := []entry{
		{name: "etc/", mode: 0o755, isDir: true},
		{name: "etc/group", mode: 0o644, body: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{name: "etc/passwd", mode: 0o644, body: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "home/", mode: 0o755, isDir: true},
		{name: "home/nonroot/", mode: 0o700, owner: uid, isDir: true},
		{name: "tmp/", mode: 0o1777, isDir: true},
		{name: "usr/", mode: 0o755, isDir: true},
		{name: "usr/local/", mode: 0o755, isDir: true},
		{name: "usr/local/bin/", mode: 0o755, isDir: true},
		{name: "usr/local/bin/ccwallet", mode: 0o755, body: exe},
		{name: "var/", mode: 0o755, isDir: true},
		{name: "var/lib/", mode: 0o755, isDir: true},
		{name: "var/lib/ccwallet/", mode: 0o750, owner: uid, isDir: true},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.owner, Gid: e.owner, ModTime: epoch, Format: tar.FormatPAX}
		if e.isDir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeArchive writes img as an OCI image layout in dir, then tars dir into
// o.Out with fixed times and owners, files in name order.
func writeArchive(img v1.Image, o Options, dir string) error {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": o.tag(),
	}), layout.WithPlatform(v1.Platform{OS: "linux", Architecture: o.Arch})); err != nil {
		return err
	}
	var names []string
	if err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		names = append(names, path)
		return nil
	}); err != nil {
		return err
	}
	sort.Strings(names)
	if err := os.MkdirAll(filepath.Dir(o.Out), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(o.Out), ".image-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	tw := tar.NewWriter(f)
	for _, path := range names {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: o.Epoch, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: fi.Size()}
		if fi.IsDir() {
			h.Name, h.Mode, h.Typeflag, h.Size = h.Name+"/", 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !fi.IsDir() {
			if err := copyFile(tw, path); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), o.Out)
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
