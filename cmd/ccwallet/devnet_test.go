package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestDevnetCLI: `ccwallet devnet` snapshots, lists, restores, resets and
// deletes on the configured database of either engine; bad names, missing
// snapshots and production are refused with words.
func TestDevnetCLI(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			db := []string{"--db", ledgertest.DBURL(t, e)}
			cli := func(args ...string) (string, error) {
				var out, errOut bytes.Buffer
				err := run(t.Context(), args, nil, &out, &errOut)
				return out.String(), err
			}
			dev := func(args ...string) (string, error) {
				return cli(append(append([]string{"devnet"}, args...), db...)...)
			}
			if out, err := cli("advance-rounds", "--rounds", "2", db[0], db[1]); err != nil {
				t.Fatalf("advance: %q %v", out, err)
			}
			// The name before the flags, and after them.
			if out, err := dev("snapshot", "at-2"); err != nil || !strings.Contains(out, "saved snapshot at-2") {
				t.Fatalf("snapshot = %q, %v", out, err)
			}
			if out, err := cli(append(append([]string{"devnet", "snapshot"}, db...), "other")...); err != nil || !strings.Contains(out, "saved snapshot other") {
				t.Fatalf("snapshot, flags first = %q, %v", out, err)
			}
			if out, err := cli("advance-rounds", "--rounds", "3", db[0], db[1]); err != nil || !strings.Contains(out, "to round 5") {
				t.Fatalf("advance = %q, %v", out, err)
			}
			out, err := dev("snapshots")
			if err != nil || !strings.Contains(out, "at-2") || !strings.Contains(out, "other") || !strings.Contains(out, "KiB") {
				t.Errorf("snapshots = %q, %v", out, err)
			}
			if out, err := dev("restore", "at-2"); err != nil || !strings.Contains(out, "restored snapshot at-2") {
				t.Fatalf("restore = %q, %v", out, err)
			}
			// Round 2 again: the next advance starts there.
			if out, err := cli("advance-rounds", "--rounds", "1", db[0], db[1]); err != nil || !strings.Contains(out, "from round 2 to round 3") {
				t.Errorf("advance after restore = %q, %v; want from round 2", out, err)
			}
			if out, err := dev("reset"); err != nil || !strings.Contains(out, "reset the network") {
				t.Fatalf("reset = %q, %v", out, err)
			}
			if out, err := cli("advance-rounds", "--rounds", "1", db[0], db[1]); err != nil || !strings.Contains(out, "from round 0 to round 1") {
				t.Errorf("advance after reset = %q, %v; want from round 0", out, err)
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"snapshot", "../x"}, "lower-case letters"},
				{[]string{"snapshot", "at-2"}, "exists"},
				{[]string{"restore", "missing"}, "no snapshot called"},
				{[]string{"restore"}, "want one snapshot name"},
				{[]string{"reset", "now"}, "takes no name"},
				{[]string{"frobnicate"}, "unknown command"},
			} {
				if _, err := dev(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("devnet %v = %v; want an error with %q", c.args, err, c.want)
				}
			}
			if out, err := dev("delete", "other"); err != nil || !strings.Contains(out, "deleted snapshot other") {
				t.Errorf("delete = %q, %v", out, err)
			}
			if _, err := dev("delete", "other"); err == nil || !strings.Contains(err.Error(), "no snapshot called") {
				t.Errorf("delete twice = %v", err)
			}
			prod := writeFile(t, "prod.yaml", "network: production\nauth:\n  jwksUrl: https://idp.example.com/.well-known/jwks.json\n")
			for _, sub := range [][]string{{"snapshot", "p"}, {"restore", "at-2"}, {"reset"}, {"snapshots"}} {
				if _, err := dev(append(sub, "--config", prod)...); err == nil || !strings.Contains(err.Error(), "only available on a development network") {
					t.Errorf("devnet %v on production = %v, want a refusal", sub, err)
				}
			}
		})
	}
}

// TestDevnetCLISnapshotDir: snapshotDir (flag, or the values file / env)
// puts the SQLite snapshots where it says.
func TestDevnetCLISnapshotDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	var out, errOut bytes.Buffer
	args := append([]string{"devnet", "snapshot", "s1", "--snapshot-dir", dir}, sqliteArgs(t)...)
	if err := run(t.Context(), args, nil, &out, &errOut); err != nil {
		t.Fatalf("snapshot: %v %s", err, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "s1.db")); err != nil {
		t.Errorf("snapshot file: %v", err)
	}
	out.Reset()
	args = append([]string{"devnet", "snapshots"}, sqliteArgs(t)...)
	if err := run(t.Context(), args, []string{"WALLET_SNAPSHOT_DIR=" + dir}, &out, &errOut); err != nil || !strings.Contains(out.String(), "s1") {
		t.Errorf("snapshots with WALLET_SNAPSHOT_DIR = %q, %v", out.String(), err)
	}
}

// TestDevnetSnapshotsServed: a running server snapshots and restores
// through its admin API, with the snapshots where snapshotDir says, and
// the CLI sees the same snapshots.
func TestDevnetSnapshotsServed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	db := sqliteArgs(t)
	s := startServe(t, db, []string{"WALLET_SNAPSHOT_DIR=" + dir})
	base := "http://" + s.addrs.App
	admin := devToken(t, "admin")
	if code := call(t, plain, "POST", base+"/v0/admin/devnet/snapshots", admin, `{"name": "served"}`, nil); code != http.StatusCreated {
		t.Fatalf("snapshot = %d\n%s", code, s.logs.String())
	}
	if code := call(t, plain, "POST", base+"/v0/admin/devnet/advance-rounds", admin, `{"rounds": 2}`, nil); code != http.StatusOK {
		t.Fatalf("advance = %d", code)
	}
	var got struct {
		Restored string `json:"restored"`
	}
	if code := call(t, plain, "POST", base+"/v0/admin/devnet/snapshots/served/restore", admin, "", &got); code != http.StatusOK || got.Restored != "served" {
		t.Fatalf("restore = %d %+v", code, got)
	}
	var adv struct {
		From int64 `json:"from_round"`
	}
	if code := call(t, plain, "POST", base+"/v0/admin/devnet/advance-rounds", admin, `{"rounds": 1}`, &adv); code != http.StatusOK || adv.From != 0 {
		t.Errorf("advance after restore = %d from %d; want from round 0", code, adv.From)
	}
	if _, err := os.Stat(filepath.Join(dir, "served.db")); err != nil {
		t.Errorf("snapshot file: %v", err)
	}
}
