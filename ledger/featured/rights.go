package featured

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// History subtypes of a party's own featured app right.
const (
	RightGranted   = "FeaturedAppRightSelfGranted"
	RightCancelled = "FeaturedAppRightCancelled"
)

// IsFeatured reports whether party holds a FeaturedAppRight now as its
// provider.
func (s *Service) IsFeatured(ctx context.Context, party coin.PartyID) (bool, error) {
	ids, err := ledger.FeaturedRightsOf(ctx, s.l.DB(), party)
	return len(ids) > 0, err
}

// SelfGrant makes party a featured app provider, as the real wallet's
// WalletAppInstall_FeaturedAppRights_SelfGrant does through
// AmuletRules_DevNet_FeatureApp: development networks only. A party that
// is featured already gets its right back, not a second one (the party's
// lock serialises concurrent grants).
func (s *Service) SelfGrant(ctx context.Context, party coin.PartyID) (coin.ContractID, error) {
	return s.selfGrant(ctx, party, commands.Command{})
}

// SelfGrantOnce is AmuletRules_DevNet_FeatureApp: party grants itself a
// featured app right, once per cmd's key, with cmd's completion; a party
// featured already fails its requirement (fault.ErrRequirement).
func (s *Service) SelfGrantOnce(ctx context.Context, party coin.PartyID, cmd commands.Command) (coin.ContractID, error) {
	return s.selfGrant(ctx, party, cmd)
}

// selfGrant is SelfGrant's rule; a command with a key deduplicates it.
func (s *Service) selfGrant(ctx context.Context, party coin.PartyID, cmd commands.Command) (coin.ContractID, error) {
	l := s.l
	if !l.DevNet() {
		return "", fmt.Errorf("%w: a featured app right can only be self-granted on a development network", fault.ErrDisabled)
	}
	var out coin.ContractID
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		if err := x.LockParties(ctx, party); err != nil {
			return err
		}
		have, err := ledger.FeaturedRightsOf(ctx, x.DB(), party)
		if err == nil && len(have) > 0 && cmd.Key != "" {
			// A command must change something: say what is there.
			return fmt.Errorf("%w: %s holds featured app right %s already", fault.ErrRequirement, party, have[0])
		}
		if err != nil || len(have) > 0 {
			if len(have) > 0 {
				out = have[0]
			}
			return err
		}
		if err := x.Begin(ctx, "featured-app-right-grant"); err != nil {
			return err
		}
		out = x.Create(ledger.TemplateFeaturedAppRight, map[string]any{"dso": l.DSO(), "provider": party}, l.DSO(), party)
		x.Record(party, ledger.HistoryNotification, RightGranted, l.DSO(), coin.Zero, coin.Zero, "", ledger.HistoryDetails{
			ContractID: out, Notification: "featured app right granted",
		})
		if cmd.Key != "" {
			x.SaveCommand(cmd, party, "featured-app-right-grant", string(out))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("self-grant featured app right of %s: %w", party, err)
	}
	return out, nil
}

// Cancel archives party's FeaturedAppRights, as the real wallet's
// WalletAppInstall_FeaturedAppRights_Cancel; with none it does nothing.
// It returns how many it archived.
func (s *Service) Cancel(ctx context.Context, party coin.PartyID) (int, error) {
	l := s.l
	var n int
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.LockParties(ctx, party); err != nil {
			return err
		}
		ids, err := ledger.FeaturedRightsOf(ctx, x.DB(), party)
		if err != nil || len(ids) == 0 {
			return err
		}
		if err := x.Begin(ctx, "featured-app-right-cancel"); err != nil {
			return err
		}
		n = len(ids)
		x.Archive(ids...)
		for _, id := range ids {
			x.Record(party, ledger.HistoryNotification, RightCancelled, l.DSO(), coin.Zero, coin.Zero, "", ledger.HistoryDetails{
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
