// Package api serves the JSON APIs of the app port: the validator's and
// the wallet's (the public specs' validator-internal, wallet-internal,
// wallet-external and ans-external documents), the token-standard registry,
// the scan proxy, the update stream and the OpenAPI documents as served.
// Handlers decode, call the ledger and encode a DTO; the rules live in
// package ledger, and every route is in Routes.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/apispec"
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	ledgerdevnet "github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ttlcache"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/web"
)

// Config is what the JSON APIs need beyond the ledger.
type Config struct {
	// Auth verifies bearer tokens.
	Auth *web.Verifier
	// Sessions are the web wallet's: a session's cookie plus its CSRF token
	// also authenticates (the API explorer page); nil: bearer tokens only.
	Sessions *web.Sessions
	// Limiter bounds each authenticated user's request rate (429 past it);
	// nil means no limit.
	Limiter *web.Limiter
	// Jobs reports the background jobs' status (GET /v0/admin/jobs); nil
	// when this process runs none.
	Jobs func() []JobStatus
	// UpdateStreamsPerUser and UpdateStreams cap the open
	// /v0/updates/stream streams (0: the Default* caps);
	// UpdateStreamInterval is how often they read the log (default 1s).
	UpdateStreamsPerUser, UpdateStreams int
	UpdateStreamInterval                time.Duration
	// Shutdown ends open update streams when the server stops.
	Shutdown <-chan struct{}
	// Changed is called after each request that may have changed
	// something (any method but GET), so the web wallet's live pages look
	// again; nil: nobody listens.
	Changed func()
	// Workflows are the ledger's workflow packages (required).
	Workflows *workflows.Set
}

// Handler serves the JSON APIs.
type Handler struct {
	l        *ledger.Ledger
	log      *slog.Logger
	auth     *web.Verifier
	sessions *web.Sessions
	jobs     func() []JobStatus
	lim      *web.Limiter
	changed  func()
	docs     apiDocs // the OpenAPI documents as served (api_docs.go)
	updates  *updateHub
	shutdown <-chan struct{}
	// w are the ledger's workflow packages (Config.Workflows).
	w *workflows.Set
	// factoryJSON is the JSON of remembered transfer-factory answers
	// (getTransferFactory).
	factoryJSON *ttlcache.Cache[factoryJSONKey, []byte]
}

// New builds the JSON APIs' handlers.
func New(l *ledger.Ledger, cfg Config, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{l: l, log: log, auth: cfg.Auth, sessions: cfg.Sessions, jobs: cfg.Jobs, lim: cfg.Limiter,
		changed: cfg.Changed, shutdown: cfg.Shutdown, w: cfg.Workflows,
		factoryJSON: ttlcache.New[factoryJSONKey, []byte](factoryJSONTTL, maxFactoryJSON)}
	h.updates = newUpdateHub(l, h.w.APIRead, cfg)
	return h
}

// Routes registers every JSON route on mux: the validator's and wallet's
// APIs at the root, as the mission lists them (the caller also serves them
// under /api/validator, the base path of the public specs' servers entry),
// and health's /readyz and /livez when health is not nil.
func (h *Handler) Routes(mux *http.ServeMux, health http.Handler) {
	rg, ext, dev := registry{h}, external{h}, devnet{h}
	ans, subs, va := nameService{h}, subscriptionRoutes{h}, validatorAdmin{h}
	// validator-internal.yaml
	mux.Handle("GET /v0/validator-user", h.api(h.getValidatorUserInfo))
	mux.Handle("POST /v0/register", h.user(h.register))
	mux.Handle("POST /v0/admin/users", h.admin(va.onboardUser))
	mux.Handle("GET /v0/admin/users", h.admin(va.listUsers))
	mux.Handle("POST /v0/admin/users/offboard", h.admin(va.offboardUser))
	mux.Handle("GET /v0/admin/transfer-preapprovals", h.admin(va.listTransferPreapprovals))
	mux.Handle("GET /v0/admin/transfer-preapprovals/by-party/{receiver}", h.admin(va.lookupTransferPreapprovalByParty))
	mux.Handle("DELETE /v0/admin/transfer-preapprovals/by-party/{receiver}", h.admin(va.cancelTransferPreapprovalByParty))
	mux.Handle("GET /v0/admin/participant/identities", h.admin(va.dumpParticipantIdentities))
	mux.Handle("GET /v0/admin/participant/global-domain-connection-config", h.admin(va.getDecentralizedSynchronizerConnectionConfig))
	mux.Handle("GET /v0/admin/domain/data-snapshot", h.admin(va.getValidatorDomainDataSnapshot))

	// wallet-external.yaml
	mux.Handle("POST /v0/wallet/transfer-offers", h.user(h.createTransferOffer))
	mux.Handle("GET /v0/wallet/transfer-offers", h.user(h.listTransferOffers))
	mux.Handle("POST /v0/wallet/transfer-offers/{tracking_id}/status", h.user(h.getTransferOfferStatus))
	mux.Handle("POST /v0/admin/external-party/topology/generate", h.admin(ext.generateExternalPartyTopology))
	mux.Handle("POST /v0/admin/external-party/topology/submit", h.admin(ext.submitExternalPartyTopology))
	mux.Handle("GET /v0/admin/external-party/balance", h.admin(ext.getExternalPartyBalance))
	// Our own prepare/submit kinds (not in the spec; see docs/api.md, "External parties").
	mux.Handle("POST /v0/admin/external-party/transfer/prepare", h.admin(ext.prepareExternalTransfer))
	mux.Handle("POST /v0/admin/external-party/minting-delegation-proposal/prepare", h.admin(ext.prepareMintingDelegationProposal))
	mux.Handle("POST /v0/admin/external-party/submit", h.admin(ext.submitExternal))
	mux.Handle("POST /v0/admin/external-party/setup-proposal", h.admin(ext.createExternalPartySetupProposal))
	mux.Handle("GET /v0/admin/external-party/setup-proposal", h.admin(ext.listExternalPartySetupProposals))
	mux.Handle("POST /v0/admin/external-party/setup-proposal/prepare-accept", h.admin(ext.prepareAcceptExternalPartySetupProposal))
	mux.Handle("POST /v0/admin/external-party/setup-proposal/submit-accept", h.admin(ext.submitAcceptExternalPartySetupProposal))
	mux.Handle("POST /v0/admin/external-party/transfer-preapproval/prepare-send", h.admin(ext.prepareTransferPreapprovalSend))
	mux.Handle("POST /v0/admin/external-party/transfer-preapproval/submit-send", h.admin(ext.submitTransferPreapprovalSend))
	mux.Handle("GET /v0/admin/external-party/transfer-command-counter/{party}", h.admin(ext.lookupTransferCommandCounter))
	mux.Handle("GET /v0/transfer-command-counter/{party}", h.api(ext.lookupTransferCommandCounter))
	mux.Handle("POST /v0/admin/devnet/tap", h.admin(ext.devnetTap))

	// wallet-internal.yaml
	mux.Handle("GET /v0/wallet/user-status", h.user(h.userStatus))
	mux.Handle("GET /v0/wallet/balance", h.user(h.getBalance))
	mux.Handle("GET /v0/wallet/amulets", h.user(h.listHoldings))
	mux.Handle("GET /v0/wallet/coins", h.user(h.listHoldings))
	mux.Handle("POST /v0/wallet/tap", h.user(h.tap))
	// The spec's paths carry the contract id; the mission's short forms
	// take it in the body. One handler serves both.
	mux.Handle("POST /v0/wallet/transfer-offers/{contract_id}/accept", h.user(h.acceptTransferOffer))
	mux.Handle("POST /v0/wallet/transfer-offers/accept", h.user(h.acceptTransferOffer))
	mux.Handle("POST /v0/wallet/transfer-offers/{contract_id}/reject", h.user(h.rejectTransferOffer))
	mux.Handle("POST /v0/wallet/transfer-offers/reject", h.user(h.rejectTransferOffer))
	mux.Handle("POST /v0/wallet/transfer-offers/{contract_id}/withdraw", h.user(h.withdrawTransferOffer))
	mux.Handle("POST /v0/wallet/transfer-offers/withdraw", h.user(h.withdrawTransferOffer))
	mux.Handle("GET /v0/wallet/accepted-transfer-offers", h.user(h.listAcceptedTransferOffers))
	mux.Handle("POST /v0/wallet/transfer-preapproval", h.user(h.createTransferPreapproval))
	mux.Handle("POST /v0/wallet/transfer-preapproval/send", h.user(h.transferPreapprovalSend))
	mux.Handle("POST /v0/wallet/transactions", h.user(h.listTransactions))
	mux.Handle("GET /v0/wallet/app-reward-coupons", h.user(h.rewardList(ledger.RewardApp, "app_reward_coupons")))
	mux.Handle("GET /v0/wallet/validator-reward-coupons", h.user(h.rewardList(ledger.RewardValidator, "validator_reward_coupons")))
	mux.Handle("GET /v0/wallet/validator-liveness-activity-records", h.user(h.rewardList(ledger.RewardLiveness, "validator_liveness_activity_records")))
	mux.Handle("GET /v0/feature-support", h.api(h.featureSupport))
	mux.Handle("GET /v0/wallet/validator-faucet-coupons", h.user(h.rewardList(ledger.RewardValidatorFaucet, "validator_faucet_coupons")))
	mux.Handle("GET /v0/wallet/sv-reward-coupons", h.user(h.rewardList(ledger.RewardSV, "sv_reward_coupons")))
	mux.Handle("POST /v0/wallet/self-grant-feature-app-right", h.user(h.selfGrantFeatureAppRight))
	mux.Handle("DELETE /v0/wallet/cancel-featured-app-rights", h.user(h.cancelFeaturedAppRights))
	mux.Handle("GET /v0/wallet/app-payment-requests", h.user(h.listAppPaymentRequests))
	mux.Handle("GET /v0/wallet/app-payment-requests/{contract_id}", h.user(h.getAppPaymentRequest))
	mux.Handle("POST /v0/wallet/app-payment-requests/{contract_id}/accept", h.user(h.acceptAppPaymentRequest))
	mux.Handle("POST /v0/wallet/app-payment-requests/{contract_id}/reject", h.user(h.rejectAppPaymentRequest))
	mux.Handle("GET /v0/wallet/accepted-app-payments", h.user(h.listAcceptedAppPayments))

	// wallet-internal.yaml: token-standard transfers
	mux.Handle("POST /v0/wallet/token-standard/transfers", h.user(h.createTokenStandardTransfer))
	mux.Handle("GET /v0/wallet/token-standard/transfers", h.user(h.listTokenStandardTransfers))
	mux.Handle("POST /v0/wallet/token-standard/transfers/{contract_id}/accept", h.user(h.moveTokenStandardTransfer(ledger.MoveAccept)))
	mux.Handle("POST /v0/wallet/token-standard/transfers/{contract_id}/reject", h.user(h.moveTokenStandardTransfer(ledger.MoveReject)))
	mux.Handle("POST /v0/wallet/token-standard/transfers/{contract_id}/withdraw", h.user(h.moveTokenStandardTransfer(ledger.MoveWithdraw)))
	mux.Handle("GET /v0/wallet/token-standard/allocation-requests", h.user(h.listAllocationRequests()))
	mux.Handle("POST /v0/wallet/token-standard/allocation-requests/{contract_id}/reject", h.user(h.rejectAllocationRequest))
	mux.Handle("GET /v0/allocations", h.user(h.listAllocations()))
	mux.Handle("POST /v0/allocations", h.user(h.allocateAmulet))
	mux.Handle("POST /v0/allocations/{contract_id}/withdraw", h.user(h.withdrawAllocation))

	// ans-external.yaml: the name service (api_ans.go)
	mux.Handle("POST /v0/entry/create", h.user(ans.createAnsEntry))
	mux.Handle("GET /v0/entry/all", h.user(ans.listAnsEntries))

	// wallet-internal.yaml: subscriptions
	mux.Handle("GET /v0/wallet/subscription-requests", h.user(subs.listSubscriptionRequests))
	mux.Handle("GET /v0/wallet/subscription-requests/{contract_id}", h.user(subs.getSubscriptionRequest))
	mux.Handle("DELETE /v0/wallet/subscription-requests/{contract_id}", h.user(subs.cancelSubscription))
	mux.Handle("POST /v0/wallet/subscription-requests/{contract_id}/accept", h.user(subs.acceptSubscriptionRequest))
	mux.Handle("POST /v0/wallet/subscription-requests/{contract_id}/reject", h.user(subs.rejectSubscriptionRequest))
	mux.Handle("GET /v0/wallet/subscription-initial-payments", h.user(subs.listSubscriptionInitialPayments))
	mux.Handle("GET /v0/wallet/subscriptions", h.user(subs.listSubscriptions))
	mux.Handle("POST /v0/admin/devnet/subscription-requests", h.admin(subs.createDevnetSubscriptionRequest))

	// wallet-external.yaml: traffic
	mux.Handle("POST /v0/wallet/buy-traffic-requests", h.user(h.createBuyTrafficRequest))
	mux.Handle("POST /v0/wallet/buy-traffic-requests/{tracking_id}/status", h.user(h.getBuyTrafficRequestStatus))

	// Devnet reassignment control (ours, not in the specs).
	mux.Handle("POST /v0/admin/devnet/reassignments", h.admin(dev.beginReassignment))
	mux.Handle("POST /v0/admin/devnet/reassignments/{contract_id}/complete", h.admin(dev.completeReassignment))

	// Token-standard registry (no auth), at the root as scan serves it and
	// under /v0/scan-proxy as the validator proxies it (with a token, as
	// every scan-proxy path).
	// Also under /api/scan, scan's base path, without a token.
	for _, prefix := range []string{"", "/api/scan", "/v0/scan-proxy"} {
		reg := h.api
		if prefix == "/v0/scan-proxy" {
			reg = h.user
		}
		ti := prefix + "/registry/transfer-instruction/v1"
		mux.Handle("POST "+ti+"/transfer-factory", reg(rg.getTransferFactory))
		mux.Handle("POST "+ti+"/{transferInstructionId}/choice-contexts/accept", reg(rg.getTransferInstructionChoiceContext(ledger.MoveAccept)))
		mux.Handle("POST "+ti+"/{transferInstructionId}/choice-contexts/reject", reg(rg.getTransferInstructionChoiceContext(ledger.MoveReject)))
		mux.Handle("POST "+ti+"/{transferInstructionId}/choice-contexts/withdraw", reg(rg.getTransferInstructionChoiceContext(ledger.MoveWithdraw)))
		mux.Handle("POST "+prefix+"/registry/allocation-instruction/v1/allocation-factory", reg(rg.getAllocationFactory))
		al := prefix + "/registry/allocations/v1/{allocationId}/choice-contexts"
		mux.Handle("POST "+al+"/execute-transfer", reg(rg.getAllocationChoiceContext(allocationdata.AllocationExecute)))
		mux.Handle("POST "+al+"/withdraw", reg(rg.getAllocationChoiceContext(allocationdata.AllocationWithdraw)))
		mux.Handle("POST "+al+"/cancel", reg(rg.getAllocationChoiceContext(allocationdata.AllocationCancel)))
		md := prefix + "/registry/metadata/v1"
		mux.Handle("GET "+md+"/info", reg(rg.getRegistryInfo))
		mux.Handle("GET "+md+"/instruments", reg(rg.listInstruments))
		mux.Handle("GET "+md+"/instruments/{instrumentId}", reg(rg.getInstrument))
	}

	// Scan's own endpoints (api_scan.go), at the root and /api/scan.
	for route, fn := range rg.scanRoutes() {
		method, path, _ := strings.Cut(route, " ")
		mux.Handle(method+" "+path, h.api(fn))
		mux.Handle(method+" /api/scan"+path, h.api(fn))
	}

	// The validator's scan proxy (api_scan_proxy.go).
	for route, fn := range rg.scanProxyRoutes() {
		method, path, _ := strings.Cut(route, " ")
		mux.Handle(method+" /v0/scan-proxy"+path, h.user(fn))
	}

	// Automations (jobs, round clock, merge delegation).
	mux.Handle("GET /v0/admin/jobs", h.admin(va.listJobs))
	mux.Handle("POST /v0/admin/devnet/advance-rounds", h.admin(dev.advanceRounds))
	if h.l.DevNet() { // snapshots, restore, reset, seed: a production network never has them (404)
		mux.Handle("GET /v0/admin/devnet/snapshots", h.admin(dev.listSnapshots))
		mux.Handle("POST /v0/admin/devnet/snapshots", h.admin(dev.createSnapshot))
		mux.Handle("DELETE /v0/admin/devnet/snapshots/{name}", h.admin(dev.deleteSnapshot))
		mux.Handle("POST /v0/admin/devnet/snapshots/{name}/restore", h.admin(dev.restoreSnapshot))
		mux.Handle("POST /v0/admin/devnet/reset", h.admin(dev.resetDevnet))
		mux.Handle("POST /v0/admin/devnet/seed", h.admin(dev.seedDevnet))
		mux.Handle("GET /v0/admin/devnet/dump", h.admin(dev.dumpDevnet))
	}
	mux.Handle("GET /v0/updates/stream", h.user(h.updateStream))
	mux.Handle("GET /v0/admin/merge-progress", h.admin(va.pendingMerges))
	mux.Handle("POST /v0/admin/merge-delegation-proposals/{contract_id}/accept", h.admin(va.acceptMergeDelegation))
	mux.Handle("POST /v0/admin/merge-delegations/airdrop", h.admin(va.airdrop))
	mux.Handle("GET /v0/wallet/merge-delegations", h.user(h.listMergeDelegations))
	mux.Handle("POST /v0/wallet/merge-delegation-proposals", h.user(h.proposeMergeDelegation))
	mux.Handle("POST /v0/wallet/merge-delegations/{contract_id}/withdraw", h.user(h.withdrawMergeDelegation))
	mux.Handle("GET /v0/wallet/minting-delegation-proposals", h.user(h.listMintingDelegationProposals))
	mux.Handle("POST /v0/wallet/minting-delegation-proposals/{contract_id}/accept", h.user(h.acceptMintingDelegationProposal))
	mux.Handle("POST /v0/wallet/minting-delegation-proposals/{contract_id}/reject", h.user(h.rejectMintingDelegationProposal))
	mux.Handle("GET /v0/wallet/minting-delegations", h.user(h.listMintingDelegations))
	mux.Handle("POST /v0/wallet/minting-delegations/{contract_id}/reject", h.user(h.withdrawMintingDelegation))

	if health != nil {
		mux.Handle("GET /readyz", h.readyzDetails(health))
		mux.Handle("GET /livez", health)
	}
	// The OpenAPI documents (api_docs.go), cut to what mux routes.
	mux.Handle("GET /openapi", h.api(h.listAPIDocs))
	mux.Handle("GET /openapi/{name}", h.api(h.getAPIDoc))
	h.docs.mux = mux
}

// Operations are the operations of each OpenAPI document the app serves,
// cut to what the mux given to Routes routes (the API explorer's list).
func (h *Handler) Operations() (map[string][]apispec.Operation, error) {
	if err := h.docs.build(); err != nil {
		return nil, err
	}
	return h.docs.ops, nil
}

// apiFunc is a JSON handler; a returned error becomes {"error": ...}.
type apiFunc func(w http.ResponseWriter, r *http.Request) error

// api adapts an apiFunc, rendering its error with the status table.
func (h *Handler) api(fn apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			writeError(h.log, w, r, err)
		} else if r.Method != http.MethodGet && h.changed != nil {
			h.changed()
		}
	})
}

// user runs fn for an authenticated caller (any user, onboarded or not).
func (h *Handler) user(fn apiFunc) http.Handler { return h.authed(h.limited(h.api(fn))) }

// limited refuses an authenticated user's requests past their rate with
// 429 and Retry-After; each user has their own budget.
func (h *Handler) limited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.lim == nil { // no limit: skip building the key
			next.ServeHTTP(w, r)
			return
		}
		if ok, retry := h.lim.Allow("user:" + subject(r.Context())); !ok {
			web.TooManyRequests(w, retry)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// admin runs fn only for wallet admins (validatorWalletUsers).
func (h *Handler) admin(fn apiFunc) http.Handler {
	return h.authed(h.limited(h.api(func(w http.ResponseWriter, r *http.Request) error {
		if c, _ := web.ClaimsFrom(r.Context()); !ledgerdevnet.IsAdminAs(h.l, c.Subject, c.ActAs) {
			if c.ActAs != "" {
				return forbidden("an impersonation token (ccwallet_act_as) acts only as its party; admin endpoints take the admin's own token")
			}
			return forbidden("this endpoint is for the validator operator's wallet admins")
		}
		return fn(w, r)
	})))
}

// actAsClaim is the party an impersonation token (or a "view as"
// session) acts as, "" for none.
func actAsClaim(ctx context.Context) string {
	c, _ := web.ClaimsFrom(ctx)
	return c.ActAs
}

// callerParty returns the caller's party, or 404 when the caller has not
// onboarded, as the real wallet answers.
func (h *Handler) callerParty(r *http.Request) (coin.PartyID, error) {
	if p, ok := shared.Party(r.Context()); ok { // acting as (actingAs)
		return p, nil
	}
	return users.Of(h.l).PartyOf(r.Context(), subject(r.Context()))
}

// readyzDetails lets an admin's authenticated /readyz see the details
// (web.WithHealthDetails); without a valid admin token it is the plain
// probe, never a 401, so probes with stray headers keep working.
func (h *Handler) readyzDetails(health http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && h.auth != nil {
			if c, err := h.auth.Verify(r.Context(), strings.TrimSpace(raw)); err == nil && ledgerdevnet.IsAdminAs(h.l, c.Subject, c.ActAs) {
				r = web.WithHealthDetails(r)
			}
		}
		health.ServeHTTP(w, r)
	})
}

func trimmed(s string) string { return strings.TrimSpace(s) }

// The handlers of the parts of the API apart from the wallet's own: each
// is the same Handler, and its methods are the part's endpoints.
type (
	// registry serves the token-standard registry and the scan proxy
	// (api_registry.go, api_scan_proxy.go): reads any client of the
	// network makes.
	registry struct{ *Handler }
	// external serves the validator's external parties and their
	// preapprovals (api_external_party.go, api_external_preapprovals.go).
	external struct{ *Handler }
	// devnet serves the development network's tools (api_devnet.go, and
	// the reassignments in api_registry.go).
	devnet struct{ *Handler }
	// nameService serves the name service (api_ans.go), also under the
	// scan proxy (api_scan_proxy.go).
	nameService struct{ *Handler }
	// subscriptionRoutes serves the wallet's subscriptions and the development
	// network's subscription requests (api_subscriptions.go).
	subscriptionRoutes struct{ *Handler }
	// validatorAdmin serves the validator's admin routes: users, the
	// preapprovals of all parties, the participant's identities and
	// configuration, the background jobs and merges (api_users.go,
	// api_preapprovals.go, api_wallet_ops.go, api_admin_jobs.go,
	// api_merge_delegation.go).
	validatorAdmin struct{ *Handler }
)
