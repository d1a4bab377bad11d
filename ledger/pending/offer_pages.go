package pending

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// OfferPageSize is how many offers the web wallet's Offers page shows at a
// time; MaxOfferPageSize the most one page of the API's list holds.
const (
	OfferPageSize    = 25
	MaxOfferPageSize = 1000
)

// OfferPage is one page of a party's open offers, newest first.
type OfferPage struct {
	Offers []ledger.Offer
	// Total counts all of them; Next is the token of the page after this
	// one ("" on the last).
	Total int
	Next  string
}

// OffersPage lists the open offers party receives (incoming) or sends, a
// page of size at a time, newest first; token is a page's Next ("" for
// the first page).
func (s *Service) OffersPage(ctx context.Context, party coin.PartyID, incoming bool, token string, size int) (OfferPage, error) {
	size = min(max(size, 1), MaxOfferPageSize)
	var after *store.OfferCursor
	if token != "" {
		nanos, cid, err := parsePageToken(token)
		if err != nil {
			return OfferPage{}, err
		}
		after = &store.OfferCursor{CreatedAt: time.Unix(0, nanos).UTC(), ContractID: cid}
	}
	rows, total, err := store.OffersPage(ctx, s.l.DB(), party, incoming, ledger.OfferCreated, after, size+1)
	if err != nil {
		return OfferPage{}, err
	}
	p := OfferPage{Total: total}
	if len(rows) > size {
		rows = rows[:size]
		last := rows[size-1]
		p.Next = pageToken(last.CreatedAt.UnixNano(), last.ContractID)
	}
	for i := range rows {
		p.Offers = append(p.Offers, ledger.OfferView(&rows[i]))
	}
	return p, nil
}

// OffersContractsPage is the core's Offers a page at a time (the API's
// listTransferOffers with a page size): up to size open offers party
// sends or receives, as contracts, oldest first, after the page token
// ("" for the first page), and the next page's token ("" on the last).
func (s *Service) OffersContractsPage(ctx context.Context, party coin.PartyID, token string, size int) ([]ledger.Contract, string, error) {
	size = min(max(size, 1), MaxOfferPageSize)
	var offset int64
	var cid coin.ContractID
	if token != "" {
		var err error
		if offset, cid, err = parsePageToken(token); err != nil {
			return nil, "", err
		}
	}
	cs, err := store.ActiveContractsPage(ctx, s.l.DB(), ledger.TemplateTransferOffer, party, offset, cid, size+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(cs) > size {
		cs = cs[:size]
		next = pageToken(cs[size-1].CreatedOffset, cs[size-1].ContractID)
	}
	out := make([]ledger.Contract, 0, len(cs))
	for i := range cs {
		out = append(out, s.l.ContractView(&cs[i]))
	}
	return out, next, nil
}

// pageToken is an opaque page token: a position and a contract ID.
func pageToken(at int64, cid coin.ContractID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at, 10) + "/" + string(cid)))
}

func parsePageToken(token string) (int64, coin.ContractID, error) {
	bad := fault.Invalid("page_token", "%q is not a page token of this list; start again without one", bounds.Clip(token, 40))
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", bad
	}
	at, cid, ok := strings.Cut(string(b), "/")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || n <= 0 {
		return 0, "", bad
	}
	c, err := coin.ParseContractID(cid)
	if err != nil {
		return 0, "", bad
	}
	return n, c, nil
}

// CheckOfferPageSize bounds an API page size.
func CheckOfferPageSize(n int64) error {
	if n < 1 || n > MaxOfferPageSize {
		return fault.Invalid("page_size", "must be between 1 and %d, not %s", MaxOfferPageSize, fmt.Sprint(n))
	}
	return nil
}
