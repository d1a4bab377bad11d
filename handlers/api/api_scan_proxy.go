package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/web"
)

// The validator's scan proxy (scan-proxy.yaml, under /v0/scan-proxy): how
// a client reads the network's contracts (the rules, the open rounds,
// preapprovals, featured app rights, transfer commands) through its own
// validator. The validator holds the ledger, so it answers them itself.
// Like the real validator (AuthenticationOnlyAuthExtractor) it wants a
// valid token and nothing more: the caller need not have a wallet.

// scanProxyRoutes lists the scan-proxy routes, relative to /v0/scan-proxy.
func (h registry) scanProxyRoutes() map[string]apiFunc {
	ans := nameService(h)
	return map[string]apiFunc{
		"GET /dso-party-id":                           h.getDsoPartyID,
		"GET /featured-apps/{provider_party_id}":      h.lookupFeaturedAppRight,
		"GET /open-and-issuing-mining-rounds":         h.getOpenAndIssuingMiningRounds,
		"GET /amulet-rules":                           h.getAmuletRules,
		"GET /transfer-preapprovals/by-party/{party}": h.scanLookupTransferPreapprovalByParty,
		"GET /transfer-command-counter/{party}":       h.scanLookupTransferCommandCounter,
		"GET /transfer-command/status":                h.lookupTransferCommandStatus,
		// The name service (api_ans.go).
		"GET /ans-entries/by-party/{party}": ans.lookupAnsEntryByParty,
		"GET /ans-entries/by-name/{name}":   ans.lookupAnsEntryByName,
		"GET /ans-entries":                  ans.listAnsEntriesScan,
		"POST /ans-rules":                   ans.getAnsRules,
	}
}

type getDsoPartyIDResponse struct {
	DsoPartyID string `json:"dso_party_id"`
}

// lookupFeaturedAppRightResponse has no right when the provider is not
// featured: an empty object, not a 404, as scan answers.
type lookupFeaturedAppRightResponse struct {
	FeaturedAppRight *ContractDTO `json:"featured_app_right,omitempty"`
}

type getOpenAndIssuingMiningRoundsProxyResponse struct {
	OpenMiningRounds    []ContractWithStateDTO `json:"open_mining_rounds"`
	IssuingMiningRounds []ContractWithStateDTO `json:"issuing_mining_rounds"`
}

type getAmuletRulesProxyResponse struct {
	AmuletRules ContractWithStateDTO `json:"amulet_rules"`
}

type transferCommandStatusDTO struct {
	Status string `json:"status"`
}

type transferCommandWithStatusDTO struct {
	Contract ContractDTO              `json:"contract"`
	Status   transferCommandStatusDTO `json:"status"`
}

type lookupTransferCommandStatusResponse struct {
	TransferCommandsByContractID map[string]transferCommandWithStatusDTO `json:"transfer_commands_by_contract_id"`
}

// getDsoPartyID answers GET /v0/scan-proxy/dso-party-id.
func (h registry) getDsoPartyID(w http.ResponseWriter, _ *http.Request) error {
	return web.WriteJSON(w, http.StatusOK, getDsoPartyIDResponse{DsoPartyID: string(h.l.DSO())})
}

// lookupFeaturedAppRight answers GET
// /v0/scan-proxy/featured-apps/{provider_party_id}.
func (h registry) lookupFeaturedAppRight(w http.ResponseWriter, r *http.Request) error {
	provider, err := parseParty("provider_party_id", r.PathValue("provider_party_id"))
	if err != nil {
		return err
	}
	c, err := h.w.Featured.Right(r.Context(), provider)
	if errors.Is(err, fault.ErrNotFound) {
		return web.WriteJSON(w, http.StatusOK, lookupFeaturedAppRightResponse{})
	} else if err != nil {
		return err
	}
	dto := contractDTO(c)
	return web.WriteJSON(w, http.StatusOK, lookupFeaturedAppRightResponse{FeaturedAppRight: &dto})
}

// getOpenAndIssuingMiningRounds answers GET
// /v0/scan-proxy/open-and-issuing-mining-rounds. The ledger issues a
// round's rewards as it closes it, so no round is ever left issuing.
func (h registry) getOpenAndIssuingMiningRounds(w http.ResponseWriter, r *http.Request) error {
	cs, err := h.w.Scan.OpenRoundContracts(r.Context())
	if err != nil {
		return err
	}
	resp := getOpenAndIssuingMiningRoundsProxyResponse{
		OpenMiningRounds: make([]ContractWithStateDTO, 0, len(cs)), IssuingMiningRounds: []ContractWithStateDTO{},
	}
	for _, c := range cs {
		resp.OpenMiningRounds = append(resp.OpenMiningRounds, contractWithState(c))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// getAmuletRules answers GET /v0/scan-proxy/amulet-rules.
func (h registry) getAmuletRules(w http.ResponseWriter, r *http.Request) error {
	c, err := h.w.Scan.AmuletRules(r.Context())
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, getAmuletRulesProxyResponse{AmuletRules: contractWithState(c)})
}

// scanLookupTransferPreapprovalByParty answers GET
// /v0/scan-proxy/transfer-preapprovals/by-party/{party}: the party's
// unarchived preapproval, whoever provides it.
func (h registry) scanLookupTransferPreapprovalByParty(w http.ResponseWriter, r *http.Request) error {
	party, err := parseParty("party", r.PathValue("party"))
	if err != nil {
		return err
	}
	p, err := h.w.Provider.LivePreapproval(r.Context(), party)
	if errors.Is(err, fault.ErrNotFound) {
		return notFound("No TransferPreapproval found for party: " + string(party))
	} else if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, lookupTransferPreapprovalByPartyResponse{TransferPreapproval: contractWithState(p.Contract)})
}

// scanLookupTransferCommandCounter answers GET
// /v0/scan-proxy/transfer-command-counter/{party}; 404 means the party's
// next nonce is 0.
func (h registry) scanLookupTransferCommandCounter(w http.ResponseWriter, r *http.Request) error {
	return h.writeTransferCommandCounter(w, r, false)
}

// lookupTransferCommandStatus answers GET
// /v0/scan-proxy/transfer-command/status?sender=&nonce=.
func (h registry) lookupTransferCommandStatus(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	sender, err := parseParty("sender", q.Get("sender"))
	if err != nil {
		return err
	}
	raw := trimmed(q.Get("nonce"))
	if raw == "" {
		return badRequest("nonce: is required")
	}
	nonce, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return badRequest(fmt.Sprintf("nonce: %q is not a whole number", raw))
	}
	cmds, err := h.w.Scan.TransferCommands(r.Context(), sender, nonce)
	if err != nil {
		return err
	}
	resp := lookupTransferCommandStatusResponse{TransferCommandsByContractID: make(map[string]transferCommandWithStatusDTO, len(cmds))}
	for _, c := range cmds {
		resp.TransferCommandsByContractID[string(c.Contract.ContractID)] = transferCommandWithStatusDTO{
			Contract: contractDTO(c.Contract), Status: transferCommandStatusDTO{Status: c.Status},
		}
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}
