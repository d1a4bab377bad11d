package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/web"
)

// The name service (ANS): the validator's ans-external.yaml (a user's
// requests and names) and scan's lookups through the scan proxy
// (scan-proxy.yaml). The rules live in ledger/ans.go.

// ansEntryDTO is scan.yaml AnsEntry: contract_id and expires_at are
// absent for the DSO's own name.
type ansEntryDTO struct {
	ContractID  *string `json:"contract_id,omitempty"`
	User        string  `json:"user"`
	Name        string  `json:"name"`
	URL         string  `json:"url"`
	Description string  `json:"description"`
	ExpiresAt   *string `json:"expires_at,omitempty"`
}

func ansEntry(e names.AnsEntry) ansEntryDTO {
	d := ansEntryDTO{User: string(e.User), Name: e.Name, URL: e.URL, Description: e.Description}
	if e.ContractID != "" {
		cid, at := string(e.ContractID), ledger.FormatTime(e.ExpiresAt)
		d.ContractID, d.ExpiresAt = &cid, &at
	}
	return d
}

type lookupAnsEntryResponse struct {
	Entry ansEntryDTO `json:"entry"`
}

type listAnsEntriesScanResponse struct {
	Entries []ansEntryDTO `json:"entries"`
}

type getAnsRulesRequest struct {
	CachedAnsRulesContractID *string `json:"cached_ans_rules_contract_id"`
	CachedAnsRulesDomainID   *string `json:"cached_ans_rules_domain_id"`
}

// maybeCachedContractWithState is common-internal.yaml's: the contract is
// left out when the caller's cached copy is current.
type maybeCachedContractWithState struct {
	Contract *ContractDTO `json:"contract,omitempty"`
	DomainID string       `json:"domain_id,omitempty"`
}

type getAnsRulesResponse struct {
	AnsRulesUpdate maybeCachedContractWithState `json:"ans_rules_update"`
}

// lookupAnsEntryByParty answers GET /v0/scan-proxy/ans-entries/by-party/{party}:
// the party's first live name in name order.
func (h nameService) lookupAnsEntryByParty(w http.ResponseWriter, r *http.Request) error {
	party, err := parseParty("party", r.PathValue("party"))
	if err != nil {
		return err
	}
	e, err := h.w.Names.AnsEntryByParty(r.Context(), party)
	if errors.Is(err, fault.ErrNotFound) {
		return notFound(fmt.Sprintf("No ANS entry found for party: %s", party))
	} else if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, lookupAnsEntryResponse{Entry: ansEntry(e)})
}

// lookupAnsEntryByName answers GET /v0/scan-proxy/ans-entries/by-name/{name}.
func (h nameService) lookupAnsEntryByName(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if len(name) > maxANSNameLen {
		return badRequest(fmt.Sprintf("name: must be at most %d characters", maxANSNameLen))
	}
	e, err := h.w.Names.AnsEntryByName(r.Context(), name)
	if errors.Is(err, fault.ErrNotFound) {
		return notFound(fmt.Sprintf("No ANS entry found for name: %s", name))
	} else if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, lookupAnsEntryResponse{Entry: ansEntry(e)})
}

// maxANSNameLen bounds the names we echo back; real ANS names are far
// shorter.
const maxANSNameLen = 255

// listAnsEntriesScan answers GET /v0/scan-proxy/ans-entries?name_prefix=&page_size=.
func (h nameService) listAnsEntriesScan(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	raw := trimmed(q.Get("page_size"))
	if raw == "" {
		return badRequest("page_size: is required")
	}
	size, err := strconv.Atoi(raw)
	if err != nil {
		return badRequest(fmt.Sprintf("page_size: %q is not a whole number", raw))
	}
	es, err := h.w.Names.AnsEntries(r.Context(), q.Get("name_prefix"), size)
	if err != nil {
		return err
	}
	resp := listAnsEntriesScanResponse{Entries: make([]ansEntryDTO, 0, len(es))}
	for _, e := range es {
		resp.Entries = append(resp.Entries, ansEntry(e))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// getAnsRules answers POST /v0/scan-proxy/ans-rules.
func (h nameService) getAnsRules(w http.ResponseWriter, r *http.Request) error {
	var req getAnsRulesRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	c, err := h.w.Names.AnsRules(r.Context())
	if err != nil {
		return err
	}
	resp := getAnsRulesResponse{AnsRulesUpdate: maybeCachedContractWithState{DomainID: c.SynchronizerID}}
	if req.CachedAnsRulesContractID == nil || *req.CachedAnsRulesContractID != string(c.ContractID) {
		dto := contractDTO(c)
		resp.AnsRulesUpdate.Contract = &dto
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// ans-external.yaml

type createAnsEntryRequest struct {
	Name        *string `json:"name"`
	URL         *string `json:"url"`
	Description *string `json:"description"`
}

type createAnsEntryResponse struct {
	EntryContextCid        string `json:"entryContextCid"`
	SubscriptionRequestCid string `json:"subscriptionRequestCid"`
	Name                   string `json:"name"`
	URL                    string `json:"url"`
	Description            string `json:"description"`
}

// createAnsEntry answers POST /v0/entry/create: the caller's request for
// a name, paid by the subscription request it answers with, which the
// caller accepts in the wallet.
func (h nameService) createAnsEntry(w http.ResponseWriter, r *http.Request) error {
	var req createAnsEntryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.Name == nil:
		return badRequest("name: is required")
	case req.URL == nil:
		return badRequest("url: is required")
	case req.Description == nil:
		return badRequest("description: is required")
	}
	party, err := h.callerParty(r)
	if err != nil {
		return err
	}
	ar := names.AnsRequest{User: party, Name: *req.Name, URL: *req.URL, Description: *req.Description}
	res, err := h.w.Names.RequestAnsEntry(r.Context(), ar)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, createAnsEntryResponse{
		EntryContextCid: string(res.EntryContextCID), SubscriptionRequestCid: string(res.SubscriptionRequestCID),
		Name: ar.Name, URL: ar.URL, Description: ar.Description,
	})
}

type ansEntryResponse struct {
	ContractID      string `json:"contractId"`
	Name            string `json:"name"`
	Amount          string `json:"amount"`
	Unit            string `json:"unit"`
	ExpiresAt       string `json:"expiresAt"`
	PaymentInterval string `json:"paymentInterval"`
	PaymentDuration string `json:"paymentDuration"`
}

type listAnsEntriesResponse struct {
	Entries []ansEntryResponse `json:"entries"`
}

// listAnsEntries answers GET /v0/entry/all: the caller's live names, with
// their subscription's terms written as the real validator writes them
// (expiry in epoch milliseconds, interval and duration in microseconds,
// the unit as its Java enum name).
func (h nameService) listAnsEntries(w http.ResponseWriter, r *http.Request) error {
	party, err := h.callerParty(r)
	if err != nil {
		return err
	}
	es, err := h.w.Names.AnsEntriesOf(r.Context(), party)
	if err != nil {
		return err
	}
	c := h.l.AnsConfig()
	resp := listAnsEntriesResponse{Entries: make([]ansEntryResponse, 0, len(es))}
	for _, e := range es {
		resp.Entries = append(resp.Entries, ansEntryResponse{
			ContractID: string(e.ContractID), Name: e.Name, Amount: c.EntryFeeUSD.String(), Unit: "USDUNIT",
			ExpiresAt:       strconv.FormatInt(e.ExpiresAt.UnixMilli(), 10),
			PaymentInterval: strconv.FormatInt(c.EntryLifetime.Microseconds(), 10),
			PaymentDuration: strconv.FormatInt(c.RenewalDuration.Microseconds(), 10),
		})
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}
