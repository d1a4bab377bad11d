package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The name service's rules, which the core keeps as it keeps AmuletRules:
// the network's AnsRules contract (created at genesis) and its config.
// The rule for a name (names.CheckName), the names themselves, their
// requests, lookups and subscription hooks are ledger/names'.

// Templates of the name service, in the real network's package.
const (
	TemplateAnsRules = "#splice-amulet-name-service:Splice.Ans:AnsRules"
)

// AnsConfig is the AnsRules' config, with the name service's acronym.
type AnsConfig struct {
	// Acronym ends every user's name (".unverified.<acronym>") and names
	// the DSO ("dso.<acronym>"); the Canton Network's is "cns".
	Acronym string
	// EntryFeeUSD is each payment (Splice: 1.0 USD).
	EntryFeeUSD coin.Amount
	// EntryLifetime is how long a payment keeps the entry (Splice: 90
	// days): the subscription's payment interval.
	EntryLifetime time.Duration
	// RenewalDuration is how long before expiry the renewal may be paid
	// (Splice: 30 days): the subscription's payment duration.
	RenewalDuration time.Duration
	// DescriptionPrefix begins the subscription's description (Splice:
	// "ANS entry: ").
	DescriptionPrefix string
}

// DefaultAnsConfig is the real network's (SpliceUtil.defaultAnsConfig).
func DefaultAnsConfig() AnsConfig {
	return AnsConfig{
		Acronym: "cns", EntryFeeUSD: coin.MustParse("1"), EntryLifetime: 90 * 24 * time.Hour,
		RenewalDuration: 30 * 24 * time.Hour, DescriptionPrefix: "ANS entry: ",
	}
}

// Daml-JSON payloads of Splice.Ans.
type ansRulesConfig struct {
	RenewalDuration   RelTime     `json:"renewalDuration"`
	EntryLifetime     RelTime     `json:"entryLifetime"`
	EntryFee          coin.Amount `json:"entryFee"`
	DescriptionPrefix string      `json:"descriptionPrefix"`
}

type ansRulesPayload struct {
	DSO    coin.PartyID   `json:"dso"`
	Config ansRulesConfig `json:"config"`
}

func (l *Ledger) ansRulesPayload() ansRulesPayload {
	c := l.ans
	return ansRulesPayload{DSO: l.dso, Config: ansRulesConfig{
		RenewalDuration: RelTimeOf(c.RenewalDuration), EntryLifetime: RelTimeOf(c.EntryLifetime),
		EntryFee: c.EntryFeeUSD, DescriptionPrefix: c.DescriptionPrefix,
	}}
}

// AnsConfig returns the name service's config.
func (l *Ledger) AnsConfig() AnsConfig { return l.ans }

// ensureAnsRules creates the AnsRules contract of a ledger bootstrapped
// before the name service (genesis creates it on new ones).
func (l *Ledger) ensureAnsRules(ctx context.Context) error {
	if cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateAnsRules, ""); err != nil || len(cs) > 0 {
		return err
	}
	return l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.db.LockKey(ctx, c.tx, "ccwallet:bootstrap"); err != nil {
			return err
		}
		cs, err := store.ActiveContractsByTemplate(ctx, c.tx, TemplateAnsRules, "")
		if err != nil || len(cs) > 0 {
			return err
		}
		t, err := c.begin(ctx, "ans-rules")
		if err != nil {
			return err
		}
		t.create(TemplateAnsRules, l.ansRulesPayload(), l.dso)
		return nil
	})
}
