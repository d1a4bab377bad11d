package ledger

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/blobcache"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Template IDs, in Daml's package-name form "#<package>:<Module>:<Entity>",
// named as on the real network so clients recognise them.
const (
	TemplateAmulet            = "#splice-amulet:Splice.Amulet:Amulet"
	TemplateLockedAmulet      = "#splice-amulet:Splice.Amulet:LockedAmulet"
	TemplateAmuletRules       = "#splice-amulet:Splice.AmuletRules:AmuletRules"
	TemplateOpenMiningRound   = "#splice-amulet:Splice.Round:OpenMiningRound"
	TemplateWalletAppInstall  = "#splice-wallet:Splice.Wallet.Install:WalletAppInstall"
	TemplateValidatorRight    = "#splice-amulet:Splice.Amulet:ValidatorRight"
	TemplateFeaturedAppRight  = "#splice-amulet:Splice.Amulet:FeaturedAppRight"
	TemplateExternalPartyRule = "#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"
)

// Contract is the read model of a ledger contract, as the APIs show it.
type Contract struct {
	ContractID     coin.ContractID
	TemplateID     string
	Payload        json.RawMessage
	CreatedAt      time.Time
	SynchronizerID string
	// CreatedEventBlob lets the ledger recognise the contract later; see
	// VerifyBlob.
	CreatedEventBlob string
	Archived         bool
}

// blobMagic versions the created-event blob format: "ccw2" blobs name the
// contract, "ccw1" ones (issued before, still accepted) carried its
// payload too. The ledger holds every contract it discloses, so a blob
// only has to prove it was issued here: the payload made an SDK
// transfer's transfer factory answer and prepare request four times as
// long, and the wallet and its client read and wrote it each time.
var (
	blobMagic   = []byte("ccw2")
	blobMagicV1 = []byte("ccw1")
)

// blobEnvelope is what a created-event blob carries, before its MAC
// (Payload only in ccw1 blobs).
type blobEnvelope struct {
	ContractID     coin.ContractID `json:"contractId"`
	TemplateID     string          `json:"templateId"`
	Payload        json.RawMessage `json:"payload,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	SynchronizerID string          `json:"synchronizerId"`
}

// FormatTime renders ledger times as the real APIs do: UTC, microseconds.
func FormatTime(t time.Time) string { return t.UTC().Format(bounds.TimeLayout) }

// blob builds the created-event blob of a contract: base64 of
// "ccw2" || envelope JSON || HMAC-SHA256(ledger key, envelope JSON). The MAC
// lets the ledger refuse a blob it did not issue.
func (l *Ledger) blob(c *store.Contract) string {
	keep := keepsBlob(c.TemplateID)
	if keep {
		if b, ok := l.blobs.MadeFor(c.ContractID, c.SynchronizerID, c.CreatedAt); ok {
			return b
		}
	}
	env, _ := json.Marshal(blobEnvelope{
		ContractID: c.ContractID, TemplateID: c.TemplateID,
		CreatedAt: FormatTime(c.CreatedAt), SynchronizerID: c.SynchronizerID,
	})
	mac := hmac.New(sha256.New, l.blobKey)
	mac.Write(env)
	var buf bytes.Buffer
	buf.Write(blobMagic)
	buf.Write(env)
	buf.Write(mac.Sum(nil))
	b := base64.StdEncoding.EncodeToString(buf.Bytes())
	if keep {
		l.blobs.KeepMade(c.ContractID, c.SynchronizerID, c.CreatedAt, b)
	}
	return b
}

// ErrForgedBlob is returned for a created-event blob this ledger did not issue.
var ErrForgedBlob = errors.New("created event blob was not issued by this ledger")

// VerifyBlob checks that blob was issued by this ledger and returns the
// contract ID and template it describes.
func (l *Ledger) VerifyBlob(blob string) (coin.ContractID, string, error) {
	if v, ok := l.blobs.VerifiedOf(blob); ok {
		return v.ID, v.Template, nil
	}
	raw, err := base64.StdEncoding.DecodeString(blob)
	if err != nil || len(raw) < len(blobMagic)+sha256.Size+2 || !bytes.HasPrefix(raw, blobMagic) && !bytes.HasPrefix(raw, blobMagicV1) {
		return "", "", ErrForgedBlob
	}
	env := raw[len(blobMagic) : len(raw)-sha256.Size]
	mac := hmac.New(sha256.New, l.blobKey)
	mac.Write(env)
	if !hmac.Equal(mac.Sum(nil), raw[len(raw)-sha256.Size:]) {
		return "", "", ErrForgedBlob
	}
	var e blobEnvelope
	if err := json.Unmarshal(env, &e); err != nil {
		return "", "", ErrForgedBlob
	}
	if keepsBlob(e.TemplateID) {
		l.blobs.KeepVerified(blob, blobcache.Verified{ID: e.ContractID, Template: e.TemplateID})
	}
	return e.ContractID, e.TemplateID, nil
}

// MAC is HMAC-SHA256, under the key that signs created-event blobs, of
// parts for purpose: how the ledger later knows as its own something it
// handed out (an interactive submission's prepared transaction, package
// ledger/external) without keeping it. Each part is length-prefixed, so
// no two lists of parts read alike.
func (l *Ledger) MAC(purpose string, parts ...[]byte) []byte {
	mac := hmac.New(sha256.New, l.blobKey)
	var n [8]byte
	for _, p := range append([][]byte{[]byte(purpose)}, parts...) {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		mac.Write(n[:])
		mac.Write(p)
	}
	return mac.Sum(nil)
}

// ContractView is a stored contract as the wallet and the APIs show it.
func (l *Ledger) ContractView(c *store.Contract) Contract {
	return Contract{
		ContractID: c.ContractID, TemplateID: c.TemplateID, Payload: json.RawMessage(c.Payload),
		CreatedAt: c.CreatedAt, SynchronizerID: c.SynchronizerID, CreatedEventBlob: l.blob(c),
		Archived: c.ArchivedOffset != nil,
	}
}

// stakeholderList encodes parties for the store (store.PartyList).
func stakeholderList(parties []coin.PartyID) string { return store.PartyList(parties) }

// Daml-JSON payload shapes, field names as on the real network.

// expiringAmount is Splice's ExpiringAmount.
type expiringAmount struct {
	InitialAmount coin.Amount `json:"initialAmount"`
	CreatedAt     RoundRef    `json:"createdAt"`
	RatePerRound  rateRef     `json:"ratePerRound"`
}

// RoundRef is Splice's Round in Daml-JSON ({"number": "7"}).
type RoundRef struct {
	Number string `json:"number"`
}

// AmuletPayload is Splice's Amulet, an unlocked holding's payload.
type AmuletPayload struct {
	DSO    coin.PartyID   `json:"dso"`
	Owner  coin.PartyID   `json:"owner"`
	Amount expiringAmount `json:"amount"`
}

type timeLock struct {
	Holders    []string `json:"holders"`
	ExpiresAt  string   `json:"expiresAt"`
	OptContext *string  `json:"optContext"`
}

// LockedAmuletPayload is Splice's LockedAmulet.
type LockedAmuletPayload struct {
	Amulet AmuletPayload `json:"amulet"`
	Lock   timeLock      `json:"lock"`
}

// RoundRefOf is round r in Daml-JSON.
func RoundRefOf(r coin.Round) RoundRef { return RoundRef{Number: fmt.Sprint(int64(r))} }

func mustJSON(v any) string {
	if a, ok := v.(jsonAppender); ok {
		var buf [512]byte
		return string(a.appendJSON(buf[:0]))
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshal payload: %v", err))
	}
	return string(b)
}

// Authorized refuses a command unless every party of need is among actAs.
func Authorized(actAs []coin.PartyID, what string, need ...coin.PartyID) error {
	for _, p := range need {
		if !slices.Contains(actAs, p) {
			return fmt.Errorf("%w: %s needs the authority of %s, which is not among actAs %v", fault.ErrForbidden, what, p, actAs)
		}
	}
	return nil
}

// ContractParties are a stored contract's stakeholders.
func ContractParties(c *store.Contract) []coin.PartyID {
	return store.ParsePartyList(c.Stakeholders)
}

// TemplateName is the entity of a template ID ("...:Subscription" ->
// "Subscription").
func TemplateName(tmpl string) string { return tmpl[strings.LastIndex(tmpl, ":")+1:] }

// createContract creates one contract of template with payload, its
// stakeholders parties (the first owns the command record), as one change
// deduplicated by cmd's key (none when empty), with cmd's completion: the
// Ledger API's create commands that only make a contract (a delegate
// proxy, a ping).
func (l *Ledger) createContract(ctx context.Context, kind string, cmd commands.Command, template string, payload any, parties ...coin.PartyID) (coin.ContractID, error) {
	for _, q := range parties {
		if err := l.KnownParty(ctx, q); err != nil {
			return "", err
		}
	}
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, cmd.Key); err != nil {
			return err
		}
		t, err := c.begin(ctx, kind)
		if err != nil {
			return err
		}
		cid = t.create(template, payload, parties...)
		if cmd.Key != "" {
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, cmd, parties[0], kind, string(cid))
			})
		}
		return nil
	})
	return cid, err
}

// keepsBlob reports whether blobs of template are kept (blobcache): not
// holdings, which are many and spent soon.
func keepsBlob(template string) bool {
	return template != TemplateAmulet && template != TemplateLockedAmulet
}
