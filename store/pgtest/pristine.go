package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// pristine returns the machine's pristine data directory for these
// binaries, running initdb to make it when there is none yet. initdb cost
// 1.4 s of CPU and 3-5 s on a loaded 2-core machine, once per test package
// (about 35 in make test); its output depends only on the binaries, the
// options and the user, so later clusters copy it instead (0.2 s of CPU).
// It is made under a temporary name and renamed into place, so a process
// never copies a half-made one; two processes racing both make one and
// the loser's is removed.
func (c *Cluster) pristine(ctx context.Context) (string, error) {
	key, err := c.pristineKey()
	if err != nil {
		return "", err
	}
	base := os.TempDir()
	if c.cred != nil && !reachable(filepath.Join(base, "x"), c.cred.Uid) {
		base = "/tmp"
	}
	final := filepath.Join(base, "ccwallet-pgtest-initdb-"+key)
	data := filepath.Join(final, "data")
	if st, err := os.Stat(data); err == nil && st.IsDir() {
		return data, nil
	}
	tmp, err := os.MkdirTemp(base, "ccwallet-pgtest-initdb-tmp")
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if c.cred != nil {
		if err := os.Chown(tmp, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("pgtest: %w", err)
		}
	}
	if err := c.runInitdb(ctx, filepath.Join(tmp, "data")); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		if st, err2 := os.Stat(data); err2 != nil || !st.IsDir() {
			return "", fmt.Errorf("pgtest: keep the pristine data directory: %w", err)
		}
	}
	return data, nil
}

// pristineKey names what initdb's output depends on: the initdb binary
// (path, size, time), its options and who runs it.
func (c *Cluster) pristineKey() (string, error) {
	bin := filepath.Join(c.binDir, "initdb")
	st, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	uid := os.Geteuid()
	if c.cred != nil {
		uid = int(c.cred.Uid)
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d\x00%s\x00%d", bin, st.Size(), st.ModTime().UnixNano(),
		strings.Join(initdbArgs(""), " "), uid))
	return hex.EncodeToString(h[:8]), nil
}

// copyTree copies the directory src to dst (which must not exist) with
// the same permissions, owned by cred's user when cred is set.
func copyTree(src, dst string, cred *syscall.Credential) error {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			err = os.Mkdir(to, info.Mode().Perm())
		case info.Mode().IsRegular():
			err = copyFile(path, to, info.Mode().Perm())
		default:
			return fmt.Errorf("%s: not a file or directory", path)
		}
		if err == nil && cred != nil {
			err = os.Lchown(to, int(cred.Uid), int(cred.Gid))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("pgtest: copy the pristine data directory: %w", err)
	}
	return nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
