package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/store/pgbatch"
)

// devnetTail is `ccwallet devnet tail`: it prints every update the ledger
// commits from now on (or after --after), filtered like GET
// /v0/updates/stream, until interrupted. It reads the configured database
// directly, so it sees what a running server commits (an admin's view);
// on a production network the stream endpoint, with its visibility rules,
// is the way.
func devnetTail(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devnet tail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	party := fs.String("party", "", "only the updates this party is a stakeholder of")
	template := fs.String("template", "", `only the updates that created or archived a contract of this template (full ID or its tail, e.g. "Splice.Amulet:Amulet")`)
	after := fs.Int64("after", -1, "start after this offset (default: the newest, so only what follows)")
	every := fs.Duration("interval", 500*time.Millisecond, "how often to read the update log")
	asJSON := fs.Bool("json", false, "print one JSON object per update")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("devnet tail: takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	if *every < 10*time.Millisecond || *every > time.Hour {
		return errors.New("devnet tail: --interval must be between 10ms and 1h")
	}
	var p coin.PartyID
	if *party != "" {
		var err error
		if p, err = coin.ParsePartyID(*party); err != nil {
			return fmt.Errorf("devnet tail: --party: %w", err)
		}
	}
	l, closeDB, err := loadDevLedger(ctx, "tail", &c, env, stderr, nil)
	if err != nil {
		return err
	}
	defer closeDB()
	reads := apiread.New(l)
	last := *after
	if last < 0 {
		if last, err = reads.LedgerEnd(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "watching updates after offset %d (Ctrl-C to stop)\n", last)
	tick := time.NewTicker(*every)
	defer tick.Stop()
	for {
		es, err := reads.UpdatesAfter(ctx, last, apiread.MaxUpdateEvents)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("devnet tail: %w", err)
		}
		for _, e := range es {
			last = e.Offset
			if e.Matches(p, *template) {
				printUpdate(stdout, e, *asJSON)
			}
		}
		if len(es) == apiread.MaxUpdateEvents {
			continue // more are waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func printUpdate(w io.Writer, e apiread.UpdateEvent, asJSON bool) {
	if asJSON {
		m := map[string]any{"offset": e.Offset, "update_id": e.UpdateID, "kind": e.Kind, "submitter": e.Submitter,
			"round": e.Round, "record_time": e.Time.UTC().Format(time.RFC3339Nano), "parties": e.Parties, "templates": e.Templates}
		if e.ActedBy != "" {
			m["acted_by"] = e.ActedBy
		}
		b, _ := json.Marshal(m)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	ps := make([]string, len(e.Parties))
	for i, p := range e.Parties {
		ps[i] = string(p)
	}
	actedBy := ""
	if e.ActedBy != "" {
		actedBy = " acted-by=" + e.ActedBy
	}
	fmt.Fprintf(w, "%d %s round %d %s parties=%s templates=%s%s\n", e.Offset, e.Time.UTC().Format(time.RFC3339), e.Round, e.Kind,
		strings.Join(ps, ","), strings.Join(e.Templates, ","), actedBy)
}

// openDevLedger opens the configured database's ledger as a development
// network, for the devnet commands; closeDB closes the database.
// loadDevLedger reads the configuration of `ccwallet devnet sub` (extra
// applies its flags) and opens its development network's ledger; any
// other network is refused.
func loadDevLedger(ctx context.Context, sub string, c *commonFlags, env envVars, stderr io.Writer, extra func(*Config)) (*ledger.Ledger, func(), error) {
	cfg, err := c.load(env, extra)
	if err != nil {
		return nil, nil, err
	}
	if !cfg.DevNet() {
		return nil, nil, fmt.Errorf("devnet %s: only available on a development network (network: devnet), this is %s", sub, cfg.Network)
	}
	return openDevLedger(ctx, cfg, env, stderr)
}

func openDevLedger(ctx context.Context, cfg Config, env envVars, stderr io.Writer) (l *ledger.Ledger, closeDB func(), err error) {
	log := newLogger(cfg, stderr)
	db, err := openStore(ctx, cfg, env, log)
	if err != nil {
		return nil, nil, err
	}
	lcfg := cfg.ledgerConfig()
	lcfg.DevNet = true
	lcfg.Writer = pgbatch.For(db)
	l, err = ledger.Open(ctx, db, lcfg, log)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return l, func() { db.Close() }, nil
}
