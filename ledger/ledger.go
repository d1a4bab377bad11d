package ledger

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/blobcache"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/damljson"
	"github.com/ccwallet/ccwallet/ledger/ttlcache"
	"github.com/ccwallet/ccwallet/ledger/validatorset"
	"github.com/ccwallet/ccwallet/store"
)

// Config is what the ledger needs from the operator's configuration.
type Config struct {
	// OperatorHint is the validator operator party's hint (validatorPartyHint).
	OperatorHint string
	// AdminUsers are the wallet admin users (validatorWalletUsers); each is
	// bound to the operator party.
	AdminUsers []string
	// DevNet enables the faucet (tap) and time control.
	DevNet bool
	// Rules seeds the network rules when the ledger is created; an existing
	// ledger keeps the rules it was created with.
	Rules *Rules
	// Now is the clock; nil means time.Now. Tests pass a fake.
	Now func() time.Time
	// Observer, when set, is told about every ledger transaction (metrics).
	Observer Observer
	// MergeDelegationAtOnboarding creates each new user's
	// MergeDelegationProposal (to the operator) as part of onboarding, as
	// the real wallet has the user sign it then.
	MergeDelegationAtOnboarding bool
	// PreparedTTL is how long an external party's prepared transaction can
	// be submitted; zero means ledger/external's DefaultPreparedTTL.
	PreparedTTL time.Duration
	// UserCacheTTL is how long an onboarded user read by ledger/users' Get or PartyOf
	// is trusted without reading it again; zero means DefaultUserCacheTTL,
	// negative disables the cache. Measured on the Now clock.
	UserCacheTTL time.Duration
	// SnapshotDir is where a development network's SQLite snapshots live;
	// empty means "snapshots" beside the database file (snapshot.go).
	SnapshotDir string
	// Ans is the name service's config; nil means DefaultAnsConfig.
	Ans *AnsConfig
	// Offers bounds transfer offers; nil means DefaultOfferLimits.
	Offers *OfferLimits
	// Writer is how commits reach the database: cmd passes store/pgbatch's
	// For(db) (on Postgres the one-statement write and the grouped sends);
	// nil means the database's plain writer (db.Plain()).
	Writer store.Writer
	// ExerciseFacts records on a Ledger API command's exercise what its
	// change wrote that the exercise's result (and who else witnesses it)
	// is shaped from when the Ledger API reads it (e.Facts), before the
	// exercise is stored with the completion: cmd passes ledger/apiread's
	// ExerciseFacts; nil stores a Unit result ({}).
	ExerciseFacts func(w Written, e *commands.Exercise)
}

// Ledger applies the coin's rules to the store. Safe for concurrent use.
// It is one validator's view of the network: the network (core) is
// shared by every validator of one process (ledger/validators, validators.go),
// the operator, the participant's namespace and the configuration are
// the validator's own.
type Ledger struct {
	*core
	cfg       Config
	namespace string
	operator  coin.PartyID
	// userSpace prefixes the keys of this validator's users (Core.UserKey,
	// validator_users.go); empty for the network's first validator.
	userSpace string
	// roundSteps run after the rounds the round clock opens (AfterRounds).
	roundSteps atomic.Pointer[[]RoundStep]
}

// core is the network every validator of one ledger shares: the
// database, the rules, the DSO, the caches and queues.
type core struct {
	db *store.DB
	// w is how commits reach db (Config.Writer).
	w   store.Writer
	log *slog.Logger

	rules          Rules
	ans            AnsConfig
	rulesCID       coin.ContractID
	blobKey        []byte
	dso            coin.PartyID
	synchronizerID string

	knownParties sync.Map                                   // coin.PartyID -> struct{}; see KnownParty (parties.go)
	partyRows    sync.Map                                   // coin.PartyID -> *store.Party; see PartyRow
	users        *ttlcache.Cache[string, UserInfo]          // onboarded users; see ledger/users' Get (usercache.go)
	rights       *ttlcache.Cache[string, []store.UserRight] // their rights rows; see ledger/users' RightRows
	sends        sender                                     // one-step send batching (sendbatch.go)

	// blobs are long-lived contracts' created-event blobs (contracts.go).
	blobs blobcache.Cache

	// validators are the network's validators in this process (validators.go).
	validators validatorset.Set[*Ledger]

	// commits wakes live readers at each commit (commits.go).
	commits commitSignal
	// completionMarks are the users' last completions committed here
	// (commits.go).
	completionMarks completionMarks
	// reassigning counts the reassignments running as far as this process
	// knows (those running when it opened, and those it began and did not
	// complete); one-step sends check for them only while it is above
	// zero, so the hot path pays nothing on a network that never
	// reassigns (a development network's tool).
	reassigning atomic.Int64
	// referenceVersion is ReferenceVersion (rounds.go).
	referenceVersion atomic.Uint64
	// gate holds requests and jobs off while a development network is
	// restored (snapshot.go).
	gate restoreGate
}

// Meta keys set once when the ledger is created.
const (
	metaBlobKey      = "blob_key"
	metaNamespace    = "participant_namespace"
	metaDSO          = "dso_party"
	metaOperator     = "operator_party"
	metaSynchronizer = "synchronizer_id"
	metaRulesCID     = "rules_cid"
	// metaRules holds the ledger's Rules (their own JSON); the AmuletRules
	// contract shows them in Splice's shape (amuletconfig.go).
	metaRules = "rules"
)

// Open loads the ledger from db, creating the network (DSO, operator party,
// rules, first round) on first start. Several replicas may call it at once.
func Open(ctx context.Context, db *store.DB, cfg Config, log *slog.Logger) (*Ledger, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.OperatorHint == "" {
		cfg.OperatorHint = "ccwallet-validator-1"
	}
	if err := coin.ValidateHint(cfg.OperatorHint); err != nil {
		return nil, fmt.Errorf("validator party hint: %w", err)
	}
	if cfg.UserCacheTTL == 0 {
		cfg.UserCacheTTL = DefaultUserCacheTTL
	}
	if cfg.Writer == nil {
		cfg.Writer = db.Plain()
	}
	l := &Ledger{core: &core{db: db, w: cfg.Writer, log: log, users: ttlcache.New[string, UserInfo](cfg.UserCacheTTL, userCacheSize), rights: ttlcache.New[string, []store.UserRight](cfg.UserCacheTTL, userCacheSize), ans: DefaultAnsConfig()}, cfg: cfg}
	if cfg.Ans != nil {
		l.ans = *cfg.Ans
	}
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := db.LockKey(ctx, c.tx, "ccwallet:bootstrap"); err != nil {
			return err
		}
		if _, err := store.MetaValue(ctx, c.tx, metaOperator); errors.Is(err, store.ErrNotFound) {
			return l.bootstrap(ctx, c)
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bootstrap ledger: %w", err)
	}
	if err := l.loadMeta(ctx); err != nil {
		return nil, err
	}
	n, err := store.CountReassignments(ctx, l.db)
	if err != nil {
		return nil, err
	}
	l.reassigning.Store(int64(n))
	if err := l.ensureAnsRules(ctx); err != nil {
		return nil, err
	}
	if err := l.ensureAdmins(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// Now is the ledger's clock (UTC), e.g. for pages that show whether a
// delegation has expired.
func (l *Ledger) Now() time.Time { return l.cfg.Now().UTC() }

// Rules returns the network rules.
func (l *Ledger) Rules() Rules { return l.rules }

// RulesContractID returns the AmuletRules contract's ID.
func (l *Ledger) RulesContractID() coin.ContractID { return l.rulesCID }

// DSO returns the network's DSO party, the coin's registry admin.
func (l *Ledger) DSO() coin.PartyID { return l.dso }

// Operator returns the validator operator's party.
func (l *Ledger) Operator() coin.PartyID { return l.operator }

// SynchronizerID returns the ID of the network's synchronizer.
func (l *Ledger) SynchronizerID() string { return l.synchronizerID }

// DevNet reports whether this is a development network.
func (l *Ledger) DevNet() bool { return l.cfg.DevNet }

// Ping checks the database, for readiness probes.
func (l *Ledger) Ping(ctx context.Context) error { return l.db.Ping(ctx) }

func (l *Ledger) loadMeta(ctx context.Context) error {
	get := func(k string) (string, error) { return store.MetaValue(ctx, l.db, k) }
	key, err := get(metaBlobKey)
	if err != nil {
		return err
	}
	if l.blobKey, err = hex.DecodeString(key); err != nil {
		return fmt.Errorf("decode blob key: %w", err)
	}
	if l.namespace, err = get(metaNamespace); err != nil {
		return err
	}
	dso, err := get(metaDSO)
	if err != nil {
		return err
	}
	op, err := get(metaOperator)
	if err != nil {
		return err
	}
	l.dso, l.operator = coin.PartyID(dso), coin.PartyID(op)
	if l.synchronizerID, err = get(metaSynchronizer); err != nil {
		return err
	}
	cid, err := get(metaRulesCID)
	if err != nil {
		return err
	}
	l.rulesCID = coin.ContractID(cid)
	if raw, err := get(metaRules); err == nil {
		if err := json.Unmarshal([]byte(raw), &l.rules); err != nil {
			return fmt.Errorf("decode rules: %w", err)
		}
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	// A ledger bootstrapped before metaRules has its rules in the rules
	// contract, in their own JSON (rulesPayload).
	c, err := store.ContractByID(ctx, l.db, l.rulesCID)
	if err != nil {
		return fmt.Errorf("load rules: %w", err)
	}
	var p rulesPayload
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return fmt.Errorf("decode rules: %w", err)
	}
	l.rules = p.Config
	return nil
}

// rulesPayload is the rules contract's payload as ledgers bootstrapped
// before metaRules stored it; loadMeta still reads it from those.
type rulesPayload struct {
	DSO      coin.PartyID `json:"dso"`
	Config   Rules        `json:"configSchedule"`
	IsDevNet bool         `json:"isDevNet"`
}

// roundPayload is Splice.Round:OpenMiningRound's payload.
type roundPayload struct {
	DSO               coin.PartyID            `json:"dso"`
	Round             RoundRef                `json:"round"`
	AmuletPrice       coin.Amount             `json:"amuletPrice"`
	OpensAt           string                  `json:"opensAt"`
	TargetClosesAt    string                  `json:"targetClosesAt"`
	IssuingFor        RelTime                 `json:"issuingFor"`
	TransferConfigUSD damljson.TransferConfig `json:"transferConfigUsd"`
	IssuanceConfig    damljson.IssuanceConfig `json:"issuanceConfig"`
	TickDuration      RelTime                 `json:"tickDuration"`
}

func randomKeyFingerprint() (string, error) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	return coin.Fingerprint(pub), nil
}

// bootstrap creates the network on an empty database: keys, the DSO and
// operator parties, the rules contract and round 0.
func (l *Ledger) bootstrap(ctx context.Context, c *change) error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	ns, err := randomKeyFingerprint()
	if err != nil {
		return err
	}
	dsoNS, err := randomKeyFingerprint()
	if err != nil {
		return err
	}
	dso, _ := coin.NewPartyID("DSO", dsoNS)
	operator, err := coin.NewPartyID(l.cfg.OperatorHint, ns)
	if err != nil {
		return err
	}
	l.blobKey, l.namespace, l.dso, l.operator, l.synchronizerID = key, ns, dso, operator, "global-domain::"+dsoNS
	rules := DefaultRules()
	if l.cfg.Rules != nil {
		rules = *l.cfg.Rules
	}
	l.rules = rules
	return l.genesis(ctx, c)
}

// genesis creates the network with l's identity and rules on empty
// tables: the identity's meta, the DSO and operator parties, the rules
// contract and round 0. A development network's reset runs it again.
func (l *Ledger) genesis(ctx context.Context, c *change) error {
	tx := c.tx
	for k, v := range map[string]string{
		metaBlobKey: hex.EncodeToString(l.blobKey), metaNamespace: l.namespace, metaDSO: string(l.dso),
		metaOperator: string(l.operator), metaSynchronizer: l.synchronizerID,
	} {
		if err := store.InsertMeta(ctx, tx, k, v); err != nil {
			return err
		}
	}
	dso, operator, syncID, rules := l.dso, l.operator, l.synchronizerID, l.rules
	now := l.Now()
	for _, p := range []store.Party{
		{PartyID: dso, Hint: "DSO", Kind: "dso", CreatedAt: now},
		{PartyID: operator, Hint: operator.Hint(), Kind: "local", CreatedAt: now},
	} {
		if err := store.InsertParty(ctx, tx, &p); err != nil {
			return err
		}
	}
	t := c.beginAt("bootstrap", &store.Round{Number: 0, Price: rules.InitialPriceUSD})
	l.rulesCID = t.create(TemplateAmuletRules, newAmuletRulesPayload(dso, rules, l.cfg.DevNet, syncID), dso)
	t.create(TemplateExternalPartyRule, map[string]any{"dso": dso}, dso)
	t.create(TemplateFeaturedAppRight, map[string]any{"dso": dso, "provider": operator}, dso, operator)
	t.create(TemplateAnsRules, l.ansRulesPayload(), dso)
	if err := l.Rounds().openRound(ctx, t, 0, rules.InitialPriceUSD, now); err != nil {
		return err
	}
	t.afterCommit(func(ctx context.Context) error {
		if err := store.InsertMeta(ctx, tx, metaRules, mustJSON(rules)); err != nil {
			return err
		}
		return store.InsertMeta(ctx, tx, metaRulesCID, string(l.rulesCID))
	})
	return nil
}

// ensureAdmins binds every configured wallet admin user to the operator
// party, so the operator can log in from the first start on.
func (l *Ledger) ensureAdmins(ctx context.Context) error {
	for _, name := range l.cfg.AdminUsers {
		key := l.Core().UserKey(name)
		err := l.change(ctx, func(ctx context.Context, c *change) error {
			u, err := store.UserByName(ctx, c.tx, key)
			if err == nil {
				if u.PartyID != l.operator || !u.IsAdmin || u.InstallCID == "" {
					return fmt.Errorf("wallet admin user %q is bound to party %s, not to the operator party %s", name, u.PartyID, l.operator)
				}
				return nil
			}
			if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			t, err := c.begin(ctx, "onboard-admin")
			if err != nil {
				return err
			}
			install := l.Core().install(t, name, l.operator)
			t.afterCommit(func(ctx context.Context) error {
				return store.InsertUser(ctx, c.tx, &store.User{Name: key, PartyID: l.operator, IsAdmin: true, InstallCID: install, CreatedAt: l.Now()})
			})
			return nil
		})
		l.users.Forget(key) // every write to users forgets the user (usercache.go)
		l.rights.Forget(key)
		if err != nil && !errors.Is(err, store.ErrAlreadyExists) {
			return fmt.Errorf("set up wallet admin %q: %w", name, err)
		}
	}
	return nil
}
