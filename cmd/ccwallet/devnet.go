package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

const devnetUsage = `Usage:
  ccwallet devnet snapshot NAME [flags]  save the network's state as NAME
  ccwallet devnet restore NAME [flags]   put the network back to snapshot NAME
  ccwallet devnet reset [flags]          start a new network with the same identity
  ccwallet devnet snapshots [flags]      list the snapshots
  ccwallet devnet delete NAME [flags]    delete snapshot NAME
  ccwallet devnet tail [--party P] [--template T] [flags]
                                         print every update the ledger commits
  ccwallet devnet seed FILE [flags]      create what scenario FILE describes, all or nothing
  ccwallet devnet dump [--out FILE]      write the network's state as a scenario

Development network only. These work on the configured database directly;
a running server restores through its admin API
(POST /v0/admin/devnet/snapshots/NAME/restore), which also resets what it
holds in memory. Names: 1-40 of a-z, 0-9, '-' and '_'. SQLite snapshots
are files in snapshotDir (default: "snapshots" beside the database);
Postgres keeps them as schemas ccwallet_snapshot_NAME in the database.
`

// devnetCmd is `ccwallet devnet SUBCOMMAND`: the development network's
// snapshots, restore and reset.
func devnetCmd(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	subs := map[string]bool{"snapshot": true, "restore": true, "delete": true, "reset": false, "snapshots": false}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, devnetUsage)
		return nil
	}
	if args[0] == "tail" {
		return devnetTail(ctx, args[1:], env, stdout, stderr)
	}
	if args[0] == "seed" || args[0] == "dump" {
		return devnetScenario(ctx, args[0], args[1:], env, stdout, stderr)
	}
	sub := args[0]
	needsName, known := subs[sub]
	if !known {
		fmt.Fprint(stderr, devnetUsage)
		return fmt.Errorf("devnet: unknown command %q", sub)
	}
	fs := flag.NewFlagSet("devnet "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, devnetUsage, "\nFlags:\n"); fs.PrintDefaults() }
	var c commonFlags
	c.register(fs)
	snapshotDir := fs.String("snapshot-dir", "", `directory of the SQLite snapshots (default "snapshots" beside the database)`)
	names, err := parseAnyOrder(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case needsName && len(names) != 1:
		return fmt.Errorf("devnet %s: want one snapshot name", sub)
	case !needsName && len(names) != 0:
		return fmt.Errorf("devnet %s: takes no name, got %q", sub, strings.Join(names, " "))
	}
	l, closeDB, err := loadDevLedger(ctx, sub, &c, env, stderr, func(cfg *Config) {
		if *snapshotDir != "" {
			cfg.SnapshotDir = *snapshotDir
		}
	})
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := l.Dev(); err != nil {
		return err
	}
	dev := devnet.New(l)
	start := time.Now()
	took := func() time.Duration { return time.Since(start).Round(time.Millisecond) }
	switch sub {
	case "snapshot":
		s, err := dev.Snapshot(ctx, names[0])
		if err != nil {
			return devnetErr(sub, err)
		}
		fmt.Fprintf(stdout, "saved snapshot %s (%s) in %s\n", s.Name, kib(s.Bytes), took())
	case "restore":
		if err := dev.Restore(ctx, names[0]); err != nil {
			return devnetErr(sub, err)
		}
		fmt.Fprintf(stdout, "restored snapshot %s in %s\n", names[0], took())
	case "reset":
		if err := dev.Reset(ctx); err != nil {
			return devnetErr(sub, err)
		}
		fmt.Fprintf(stdout, "reset the network in %s; operator party %s\n", took(), l.Operator())
	case "delete":
		if err := dev.DeleteSnapshot(ctx, names[0]); err != nil {
			return devnetErr(sub, err)
		}
		fmt.Fprintf(stdout, "deleted snapshot %s\n", names[0])
	case "snapshots":
		all, err := dev.Snapshots(ctx)
		if err != nil {
			return devnetErr(sub, err)
		}
		if len(all) == 0 {
			fmt.Fprintln(stdout, "no snapshots")
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTAKEN\tSIZE")
		for _, s := range all {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.CreatedAt.UTC().Format(time.RFC3339), kib(s.Bytes))
		}
		return tw.Flush()
	}
	return nil
}

// devnetErr words a ledger error for the terminal.
func devnetErr(sub string, err error) error {
	var v *fault.ValidationError
	if errors.As(err, &v) {
		return fmt.Errorf("devnet %s: snapshot %s", sub, v.Error())
	}
	return fmt.Errorf("devnet %s: %w", sub, err)
}

// parseAnyOrder parses args with fs, the arguments that are not flags
// (names, files) coming before, between or after the flags.
func parseAnyOrder(fs *flag.FlagSet, args []string) ([]string, error) {
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return names, nil
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func kib(n int64) string { return fmt.Sprintf("%d KiB", (n+1023)/1024) }
