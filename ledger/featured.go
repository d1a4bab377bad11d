package ledger

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// History subtypes of a party's own featured app right.
const (
	FeaturedAppRightGranted   = "FeaturedAppRightSelfGranted"
	FeaturedAppRightCancelled = "FeaturedAppRightCancelled"
)

// featuredRightsOf lists provider's live FeaturedAppRights (the DSO is a
// stakeholder of every right, so the payload's provider decides).
func featuredRightsOf(ctx context.Context, db bun.IDB, provider coin.PartyID) ([]coin.ContractID, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, TemplateFeaturedAppRight, provider)
	if err != nil {
		return nil, err
	}
	var out []coin.ContractID
	for _, c := range cs {
		var p struct {
			Provider coin.PartyID `json:"provider"`
		}
		if json.Unmarshal([]byte(c.Payload), &p) == nil && p.Provider == provider {
			out = append(out, c.ContractID)
		}
	}
	return out, nil
}

// IsFeatured reports whether party holds a FeaturedAppRight now.
func (l *Ledger) IsFeatured(ctx context.Context, party coin.PartyID) (bool, error) {
	ids, err := featuredRightsOf(ctx, l.db, party)
	return len(ids) > 0, err
}

// SelfGrantFeaturedAppRight makes party a featured app provider, as the
// real wallet's WalletAppInstall_FeaturedAppRights_SelfGrant does through
// AmuletRules_DevNet_FeatureApp: development networks only. A party that
// is featured already gets its right back, not a second one (the party's
// lock serialises concurrent grants).
func (l *Ledger) SelfGrantFeaturedAppRight(ctx context.Context, party coin.PartyID) (coin.ContractID, error) {
	return l.selfGrantFeaturedAppRight(ctx, party, "")
}

// selfGrantFeaturedAppRight is SelfGrantFeaturedAppRight's rule; a
// non-empty key deduplicates the command.
func (l *Ledger) selfGrantFeaturedAppRight(ctx context.Context, party coin.PartyID, key string) (coin.ContractID, error) {
	if !l.cfg.DevNet {
		return "", fmt.Errorf("%w: a featured app right can only be self-granted on a development network", ErrDisabled)
	}
	var out coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.claimOnce(ctx, tx, key); err != nil {
			return err
		}
		if err := l.lockParties(ctx, tx, party); err != nil {
			return err
		}
		have, err := featuredRightsOf(ctx, tx, party)
		if err == nil && len(have) > 0 && key != "" {
			// A command must change something: say what is there.
			return fmt.Errorf("%w: %s holds featured app right %s already", ErrRequirement, party, have[0])
		}
		if err != nil || len(have) > 0 {
			if len(have) > 0 {
				out = have[0]
			}
			return err
		}
		t, err := c.begin(ctx, "featured-app-right-grant")
		if err != nil {
			return err
		}
		out = t.create(TemplateFeaturedAppRight, map[string]any{"dso": l.dso, "provider": party}, l.dso, party)
		t.record(party, "notification", FeaturedAppRightGranted, l.dso, coin.Zero, coin.Zero, "", HistoryDetails{
			ContractID: out, Notification: "featured app right granted",
		})
		if key != "" {
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, key, party, "featured-app-right-grant", string(out))
			})
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("self-grant featured app right of %s: %w", party, err)
	}
	return out, nil
}

// CancelFeaturedAppRights archives party's FeaturedAppRights, as the real
// wallet's WalletAppInstall_FeaturedAppRights_Cancel; with none it does
// nothing. It returns how many it archived.
func (l *Ledger) CancelFeaturedAppRights(ctx context.Context, party coin.PartyID) (int, error) {
	var n int
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.lockParties(ctx, tx, party); err != nil {
			return err
		}
		ids, err := featuredRightsOf(ctx, tx, party)
		if err != nil || len(ids) == 0 {
			return err
		}
		t, err := c.begin(ctx, "featured-app-right-cancel")
		if err != nil {
			return err
		}
		n = len(ids)
		t.archive(ids...)
		for _, id := range ids {
			t.record(party, "notification", FeaturedAppRightCancelled, l.dso, coin.Zero, coin.Zero, "", HistoryDetails{
				ContractID: id, Notification: "featured app right cancelled",
			})
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("cancel featured app rights of %s: %w", party, err)
	}
	return n, nil
}
