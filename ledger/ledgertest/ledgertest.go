// Package ledgertest sets up real databases and ledgers for tests: a
// private Postgres cluster per test package (a migrated template cloned per
// test) and SQLite files, so every ledger test runs on both engines.
package ledgertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/store/pgbatch"
	"github.com/ccwallet/ccwallet/store/pgtest"
	"github.com/google/uuid"
)

const templateName = "ccwallet_template"

var (
	cluster  *pgtest.Cluster
	startErr error
	once     sync.Once
)

// Main runs a test package's tests with a private Postgres cluster started
// once and stopped at the end. Call it from TestMain. A cluster that cannot
// start fails the run: tests never skip Postgres.
func Main(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	os.Exit(code)
}

// Cluster returns the package's Postgres cluster, starting it on first use.
func Cluster(t testing.TB) *pgtest.Cluster {
	t.Helper()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c, err := pgtest.Start(ctx)
		if err != nil {
			startErr = err
			return
		}
		startErr = c.CreateTemplate(ctx, templateName, func(ctx context.Context, url string) error {
			db, err := store.Open(ctx, store.Config{URL: url}, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			_, err = db.Migrate(ctx)
			return err
		})
		cluster = c
	})
	if startErr != nil {
		t.Fatalf("start test postgres (run `make deps`): %v", startErr)
	}
	return cluster
}

// Engines lists the database engines every ledger test runs on.
var Engines = []store.Dialect{store.Postgres, store.SQLite}

// DBURL returns the URL of a fresh, migrated database of the engine, removed
// when the test ends.
func DBURL(t testing.TB, engine store.Dialect) string {
	t.Helper()
	if engine == store.SQLite {
		return filepath.Join(t.TempDir(), "ccwallet.db")
	}
	c := Cluster(t)
	url, drop, err := c.CloneDB(context.Background(), templateName)
	if err != nil {
		t.Fatalf("clone test database: %v", err)
	}
	t.Cleanup(drop)
	return url
}

// DB opens a fresh migrated database of the engine.
func DB(t testing.TB, engine store.Dialect) *store.DB {
	t.Helper()
	return openDB(t, DBURL(t, engine))
}

// OpenDB opens and migrates the database at url (from DBURL), closed when
// the test ends: several calls on one url are replicas' connections.
func OpenDB(t testing.TB, url string) *store.DB {
	t.Helper()
	return openDB(t, url)
}

// openDB opens and migrates the database at url, closed when the test ends.
func openDB(t testing.TB, url string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Config{URL: url}, nil)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", url, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Open opens a ledger on the database at url (from DBURL) as a wallet
// process would, with the tests' configuration (admin user "admin", the
// development network, o's clock and rules): several calls on one url are
// replicas. Unlike New it checks nothing when the test ends.
func Open(t testing.TB, url string, o Options) *ledger.Ledger {
	t.Helper()
	if o.Clock == nil {
		o.Clock = NewClock()
	}
	l, err := OpenLedger(context.Background(), openDB(t, url), ledger.Config{
		AdminUsers: []string{"admin"}, DevNet: true, Now: o.Clock.Now, Rules: o.Rules, Offers: o.Offers,
	})
	if err != nil {
		t.Fatalf("open ledger: %v", err)
	}
	return l
}

// Clock is a settable clock for tests.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set moves the clock to t, back as well as forward (a test that
// restores a snapshot puts its clock back with it).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Options tune New.
type Options struct {
	Clock *Clock
	Rules *ledger.Rules
	// Offers, when set, are the ledger's offer limits.
	Offers *ledger.OfferLimits
}

// New returns a devnet ledger on a fresh database of the engine, with the
// wallet admin user "admin". It checks conservation and the holding
// versions (AuditHoldingVersions) when the test ends.
func New(t testing.TB, engine store.Dialect, opts ...Options) *ledger.Ledger {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	l := Open(t, DBURL(t, engine), o)
	AuditHoldingVersions(t, l.DB())
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		if _, err := l.CheckConservation(context.Background()); err != nil {
			t.Errorf("after the test: %v", err)
		}
	})
	return l
}

// Party onboards a fresh user and returns its party.
func Party(t testing.TB, l *ledger.Ledger) coin.PartyID {
	t.Helper()
	name := "user-" + uuid.NewString()[:8]
	p, err := users.Of(l).Onboard(context.Background(), name, "")
	if err != nil {
		t.Fatalf("onboard %s: %v", name, err)
	}
	return p
}

// Mint gives party amount coin in one new holding.
func Mint(t testing.TB, l *ledger.Ledger, p coin.PartyID, amount string) coin.ContractID {
	t.Helper()
	cid, err := Dev(t, l).Mint(context.Background(), p, coin.MustParse(amount), "test")
	if err != nil {
		t.Fatalf("mint %s to %s: %v", amount, p, err)
	}
	return cid
}

// Dev is l's development-network tools (minting outside the faucet,
// seeding rewards, reset: ledger/devnet's); the test fails unless l runs
// a development network.
func Dev(t testing.TB, l *ledger.Ledger) *devnet.Service {
	t.Helper()
	if _, err := l.Dev(); err != nil {
		t.Fatal(err)
	}
	return devnet.New(l)
}

// Snapshot saves l's state now and returns what puts it back: a test sets
// its network up once and restores it before each case, which is faster
// than setting it up again (a restore of 10,000 holdings takes well under
// a second). The snapshot is deleted when the test ends.
func Snapshot(t testing.TB, l *ledger.Ledger) (restore func(t testing.TB)) {
	t.Helper()
	ctx := context.Background()
	name := "test-" + uuid.NewString()[:8]
	if _, err := devnet.New(l).Snapshot(ctx, name); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	t.Cleanup(func() {
		if err := devnet.New(l).DeleteSnapshot(ctx, name); err != nil {
			t.Errorf("delete snapshot %s: %v", name, err)
		}
	})
	return func(t testing.TB) {
		t.Helper()
		if err := devnet.New(l).Restore(ctx, name); err != nil {
			t.Fatalf("restore snapshot %s: %v", name, err)
		}
	}
}

// Conserved fails the test unless the conservation check holds now.
func Conserved(t testing.TB, l *ledger.Ledger) ledger.Supply {
	t.Helper()
	s, err := l.CheckConservation(context.Background())
	if err != nil {
		t.Fatalf("conservation: %v", err)
	}
	return s
}

// Name is a readable subtest name for an engine.
func Name(engine store.Dialect) string { return fmt.Sprint(engine) }

// ShareOf is p's part of a history entry in the wallet API's shape: its
// amount as sender plus its amounts as receiver.
func ShareOf(p coin.PartyID, sender *ledger.PartyAmount, receivers []ledger.PartyAmount) coin.Amount {
	a := coin.Zero
	if sender != nil && sender.Party == p {
		a = a.Add(sender.Amount)
	}
	for _, r := range receivers {
		if r.Party == p {
			a = a.Add(r.Amount)
		}
	}
	return a
}

// OpenLedger is ledger.Open as cmd calls it: cfg.Writer, when nil, is
// store/pgbatch's writer for db, as the wallet process passes;
// cfg.ExerciseFacts, when nil, is ledger/apiread's, as cmd passes; and, as
// cmd does, it builds the ledger's workflows (workflows.New), which give
// its round clock the steps it runs after each round (dust expiry,
// reward collection). A test that needs the Set builds its own; that wires the
// same steps again.
func OpenLedger(ctx context.Context, db *store.DB, cfg ledger.Config) (*ledger.Ledger, error) {
	if cfg.Writer == nil {
		cfg.Writer = pgbatch.For(db)
	}
	if cfg.ExerciseFacts == nil {
		cfg.ExerciseFacts = apiread.ExerciseFacts
	}
	l, err := ledger.Open(ctx, db, cfg, nil)
	if err != nil {
		return nil, err
	}
	workflows.New(l)
	return l, nil
}
