package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
)

// devnetScenario is `ccwallet devnet seed FILE` and `ccwallet devnet dump
// [--out FILE]`: a scenario file loaded into, or written from, the
// configured database of a development network (docs/devnet.md,
// "Scenarios").
func devnetScenario(ctx context.Context, sub string, args []string, env envVars, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("devnet "+sub, flag.ContinueOnError)
	fset.SetOutput(stderr)
	var c commonFlags
	c.register(fset)
	out := fset.String("out", "", "dump: write the scenario to this file instead of standard output")
	files, err := parseAnyOrder(fset, args)
	if err != nil {
		return err
	}
	switch {
	case sub == "seed" && len(files) != 1:
		return errors.New("devnet seed: want one scenario file")
	case sub == "dump" && len(files) != 0:
		return fmt.Errorf("devnet dump: takes no file but --out, got %q", strings.Join(files, " "))
	}
	l, closeDB, err := loadDevLedger(ctx, sub, &c, env, stderr, nil)
	if err != nil {
		return err
	}
	defer closeDB()
	if sub == "seed" {
		return seedScenarioFile(ctx, l, files[0], stdout)
	}
	return dumpScenario(ctx, l, *out, stdout)
}

// dumpScenario writes the network's state as a scenario to out, or to
// stdout.
func dumpScenario(ctx context.Context, l *ledger.Ledger, out string, stdout io.Writer) error {
	sc, err := devnet.New(l).Dump(ctx)
	if err != nil {
		return fmt.Errorf("devnet dump: %w", err)
	}
	b, err := sc.Marshal()
	if err != nil {
		return err
	}
	head := fmt.Sprintf("# ccwallet devnet dump at %s: load it with ccwallet serve --seed FILE.\n"+
		"# Balances are what each party has available; an instruction's locked coin is minted for it.\n",
		l.Now().UTC().Format(time.RFC3339))
	b = append([]byte(head), b...)
	if out == "" {
		_, err := stdout.Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("devnet dump: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %d users, %d parties, %d offers and %d instructions to %s\n",
		len(sc.Users), len(sc.Parties), len(sc.Offers), len(sc.Instructions), out)
	return nil
}

// seedScenarioFile loads the scenario at path into l, all or nothing. The
// external parties' keys are read from, or written to, the scenario's
// keys directory (keys_dir, default NAME.keys beside the file): a key
// file there is used, a missing one is generated and written (mode
// 0600) before the seed, and removed again if the seed fails. Keys are
// never printed.
func seedScenarioFile(ctx context.Context, l *ledger.Ledger, path string, stdout io.Writer) error {
	start := time.Now()
	sc, err := readScenario(path)
	if err != nil {
		return err
	}
	dir := sc.KeysDir
	switch {
	case dir == "":
		dir = strings.TrimSuffix(path, filepath.Ext(path)) + ".keys"
	case !filepath.IsAbs(dir):
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	have := map[string]ed25519.PrivateKey{}
	for _, p := range sc.Parties {
		if !p.External {
			continue
		}
		k, err := readKey(keyPath(dir, p.Name))
		switch {
		case err == nil:
			have[p.Name] = k
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("seed %s: %w", path, err)
		}
	}
	keys, err := devnet.NewScenarioKeys(sc, have)
	if err != nil {
		return err
	}
	var written []string
	removeWritten := func() {
		for _, f := range written {
			os.Remove(f)
		}
	}
	for name, k := range keys {
		if _, ok := have[name]; ok {
			continue
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("seed %s: keys directory: %w", path, err)
		}
		if err := writeKeyFile(keyPath(dir, name), k); err != nil {
			removeWritten()
			return fmt.Errorf("seed %s: write %s's key: %w", path, name, err)
		}
		written = append(written, keyPath(dir, name))
	}
	if _, err := l.Dev(); err != nil {
		removeWritten()
		return err
	}
	res, err := devnet.New(l).Seed(ctx, sc, keys)
	if err != nil {
		removeWritten()
		return fmt.Errorf("seed %s: nothing of it was created: %w", path, err)
	}
	fmt.Fprintf(stdout, "seeded %s in %s: %d users, %d parties, %d offers, %d instructions\n", path,
		time.Since(start).Round(time.Millisecond), len(sc.Users), len(sc.Parties), len(sc.Offers), len(sc.Instructions))
	names := make([]string, 0, len(res.Parties))
	for n := range res.Parties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		line := fmt.Sprintf("  %s\t%s", n, res.Parties[n])
		if _, ok := keys[n]; ok {
			line += "\tkey " + keyPath(dir, n)
		}
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// readScenario reads and parses a scenario file, bounded.
func readScenario(path string) (*devnet.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, devnet.MaxScenarioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", path, err)
	}
	sc, err := devnet.ParseScenario(b)
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", path, err)
	}
	return sc, nil
}

// keyPath is where an external party's key file lives; the name is a
// party hint (letters, digits, ':', '-', '_', space), so it stays in dir.
func keyPath(dir, name string) string {
	return filepath.Join(dir, name+".key")
}

// seed is serve --seed: the scenario is loaded after the ledger opens
// and before the automations and servers start, so the network is served
// with it or not at all.
func (s *serving) seed(ctx context.Context) error {
	if s.cfg.Seed == "" {
		return nil
	}
	if err := seedScenarioFile(ctx, s.l, s.cfg.Seed, s.stdout); err != nil {
		return fmt.Errorf("--seed: %w", err)
	}
	return nil
}
