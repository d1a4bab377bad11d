// Package handlers holds the route table and the HTTP handlers of the JSON
// APIs and the web UI. Handlers decode, call the ledger and encode; the
// rules live in package ledger.
package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// Config is what the handlers need beyond the ledger.
type Config struct {
	// Auth verifies bearer tokens of the JSON APIs.
	Auth *web.Verifier
	// Observe is extra middleware (e.g. web.Metrics) placed inside
	// RequestID and Logger, where the route pattern is visible.
	Observe []web.Middleware
	// UI is the web wallet; nil serves the JSON APIs only.
	UI *UI
	// Limiter bounds each authenticated user's request rate (429 past it);
	// nil means no limit.
	Limiter *web.Limiter
	// Jobs reports the background jobs' status (GET /v0/admin/jobs); nil
	// when this process runs none.
	Jobs func() []JobStatus
	// Network lists the configuration keys that concern a real
	// multi-validator network, for the admin page; cmd fills it from the
	// validated configuration with secrets masked.
	Network []NetworkSetting
	// Warnings are the configuration's security warnings, shown to admins
	// on the admin page and on /readyz.
	Warnings []string
	// WalletOff is enableWallet: false: the wallet's API and pages answer
	// 503; the validator's admin API, the registry and health still work.
	WalletOff bool
	// UpdateStreamsPerUser and UpdateStreams cap the open
	// /v0/updates/stream streams (0: the Default* caps);
	// UpdateStreamInterval is how often they read the log (default 1s).
	UpdateStreamsPerUser, UpdateStreams int
	UpdateStreamInterval                time.Duration
	// Shutdown ends open update streams when the server stops.
	Shutdown <-chan struct{}
}

// Handler serves every HTTP route of the app port.
type Handler struct {
	l    *ledger.Ledger
	log  *slog.Logger
	auth *web.Verifier
	obs  []web.Middleware
	ui   *UI
	jobs func() []JobStatus
	lim  *web.Limiter
	net  []NetworkSetting

	warnings []string
	events   *eventHub // counts and feeds the /events streams (nil without UI)
	docs     apiDocs   // the OpenAPI documents as served (api_docs.go)
	updates  *updateHub
	shutdown <-chan struct{}
	// walletOff: see Config.WalletOff.
	walletOff bool
}

// New builds the handlers.
func New(l *ledger.Ledger, cfg Config, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{l: l, log: log, auth: cfg.Auth, obs: cfg.Observe, ui: cfg.UI, jobs: cfg.Jobs, lim: cfg.Limiter, net: cfg.Network,
		warnings: cfg.Warnings, walletOff: cfg.WalletOff, shutdown: cfg.Shutdown}
	h.updates = newUpdateHub(l, cfg)
	if cfg.UI != nil {
		h.events = newEventHub(l, cfg.UI)
	}
	return h
}

// apiFunc is a JSON handler; a returned error becomes {"error": ...}.
type apiFunc func(w http.ResponseWriter, r *http.Request) error

// api adapts an apiFunc, rendering its error with the status table.
func (h *Handler) api(fn apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			writeError(h.log, w, r, err)
		} else if r.Method != http.MethodGet {
			h.events.nudge()
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
		if !h.l.IsAdmin(subject(r.Context())) {
			return forbidden("this endpoint is for the validator operator's wallet admins")
		}
		return fn(w, r)
	})))
}

// subject is the authenticated user name (the token's sub).
func subject(ctx context.Context) string {
	c, _ := web.ClaimsFrom(ctx)
	return c.Subject
}

// callerParty returns the caller's party, or 404 when the caller has not
// onboarded, as the real wallet answers.
func (h *Handler) callerParty(r *http.Request) (coin.PartyID, error) {
	if p, ok := r.Context().Value(partyKey{}).(coin.PartyID); ok { // acting as (actingAs)
		return p, nil
	}
	return h.l.PartyOf(r.Context(), subject(r.Context()))
}

// Routes returns the app port's handler. The JSON APIs are served at the
// root, as the mission lists them, and under /api/validator, the base path
// of the public specs' servers entry.
func (h *Handler) Routes(health http.Handler) http.Handler {
	mux := http.NewServeMux()

	// validator-internal.yaml
	mux.Handle("GET /v0/validator-user", h.api(h.getValidatorUserInfo))
	mux.Handle("POST /v0/register", h.user(h.register))
	mux.Handle("POST /v0/admin/users", h.admin(h.onboardUser))
	mux.Handle("GET /v0/admin/users", h.admin(h.listUsers))
	mux.Handle("POST /v0/admin/users/offboard", h.admin(h.offboardUser))
	mux.Handle("GET /v0/admin/transfer-preapprovals", h.admin(h.listTransferPreapprovals))
	mux.Handle("GET /v0/admin/transfer-preapprovals/by-party/{receiver}", h.admin(h.lookupTransferPreapprovalByParty))
	mux.Handle("DELETE /v0/admin/transfer-preapprovals/by-party/{receiver}", h.admin(h.cancelTransferPreapprovalByParty))
	mux.Handle("GET /v0/admin/participant/identities", h.admin(h.dumpParticipantIdentities))
	mux.Handle("GET /v0/admin/participant/global-domain-connection-config", h.admin(h.getDecentralizedSynchronizerConnectionConfig))
	mux.Handle("GET /v0/admin/domain/data-snapshot", h.admin(h.getValidatorDomainDataSnapshot))

	// wallet-external.yaml
	mux.Handle("POST /v0/wallet/transfer-offers", h.user(h.createTransferOffer))
	mux.Handle("GET /v0/wallet/transfer-offers", h.user(h.listTransferOffers))
	mux.Handle("POST /v0/wallet/transfer-offers/{tracking_id}/status", h.user(h.getTransferOfferStatus))
	mux.Handle("POST /v0/admin/external-party/topology/generate", h.admin(h.generateExternalPartyTopology))
	mux.Handle("POST /v0/admin/external-party/topology/submit", h.admin(h.submitExternalPartyTopology))
	mux.Handle("GET /v0/admin/external-party/balance", h.admin(h.getExternalPartyBalance))
	// Our own prepare/submit kinds (not in the spec; see docs/api.md, "External parties").
	mux.Handle("POST /v0/admin/external-party/transfer/prepare", h.admin(h.prepareExternalTransfer))
	mux.Handle("POST /v0/admin/external-party/minting-delegation-proposal/prepare", h.admin(h.prepareMintingDelegationProposal))
	mux.Handle("POST /v0/admin/external-party/submit", h.admin(h.submitExternal))
	mux.Handle("POST /v0/admin/external-party/setup-proposal", h.admin(h.createExternalPartySetupProposal))
	mux.Handle("GET /v0/admin/external-party/setup-proposal", h.admin(h.listExternalPartySetupProposals))
	mux.Handle("POST /v0/admin/external-party/setup-proposal/prepare-accept", h.admin(h.prepareAcceptExternalPartySetupProposal))
	mux.Handle("POST /v0/admin/external-party/setup-proposal/submit-accept", h.admin(h.submitAcceptExternalPartySetupProposal))
	mux.Handle("POST /v0/admin/external-party/transfer-preapproval/prepare-send", h.admin(h.prepareTransferPreapprovalSend))
	mux.Handle("POST /v0/admin/external-party/transfer-preapproval/submit-send", h.admin(h.submitTransferPreapprovalSend))
	mux.Handle("GET /v0/admin/external-party/transfer-command-counter/{party}", h.admin(h.lookupTransferCommandCounter))
	mux.Handle("GET /v0/transfer-command-counter/{party}", h.api(h.lookupTransferCommandCounter))
	mux.Handle("POST /v0/admin/devnet/tap", h.admin(h.devnetTap))

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
	mux.Handle("POST /v0/entry/create", h.user(h.createAnsEntry))
	mux.Handle("GET /v0/entry/all", h.user(h.listAnsEntries))

	// wallet-internal.yaml: subscriptions
	mux.Handle("GET /v0/wallet/subscription-requests", h.user(h.listSubscriptionRequests))
	mux.Handle("GET /v0/wallet/subscription-requests/{contract_id}", h.user(h.getSubscriptionRequest))
	mux.Handle("DELETE /v0/wallet/subscription-requests/{contract_id}", h.user(h.cancelSubscription))
	mux.Handle("POST /v0/wallet/subscription-requests/{contract_id}/accept", h.user(h.acceptSubscriptionRequest))
	mux.Handle("POST /v0/wallet/subscription-requests/{contract_id}/reject", h.user(h.rejectSubscriptionRequest))
	mux.Handle("GET /v0/wallet/subscription-initial-payments", h.user(h.listSubscriptionInitialPayments))
	mux.Handle("GET /v0/wallet/subscriptions", h.user(h.listSubscriptions))
	mux.Handle("POST /v0/admin/devnet/subscription-requests", h.admin(h.createDevnetSubscriptionRequest))

	// wallet-external.yaml: traffic
	mux.Handle("POST /v0/wallet/buy-traffic-requests", h.user(h.createBuyTrafficRequest))
	mux.Handle("POST /v0/wallet/buy-traffic-requests/{tracking_id}/status", h.user(h.getBuyTrafficRequestStatus))

	// Devnet reassignment control (ours, not in the specs).
	mux.Handle("POST /v0/admin/devnet/reassignments", h.admin(h.beginReassignment))
	mux.Handle("POST /v0/admin/devnet/reassignments/{contract_id}/complete", h.admin(h.completeReassignment))

	// Token-standard registry (no auth), at the root as scan serves it and
	// under /v0/scan-proxy as the validator proxies it (with a token, as
	// every scan-proxy path).
	for _, prefix := range []string{"", "/api/scan", "/v0/scan-proxy"} {
		reg := h.api
		if prefix == "/v0/scan-proxy" {
			reg = h.user
		}
		ti := prefix + "/registry/transfer-instruction/v1"
		mux.Handle("POST "+ti+"/transfer-factory", reg(h.getTransferFactory))
		mux.Handle("POST "+ti+"/{transferInstructionId}/choice-contexts/accept", reg(h.getTransferInstructionChoiceContext(ledger.MoveAccept)))
		mux.Handle("POST "+ti+"/{transferInstructionId}/choice-contexts/reject", reg(h.getTransferInstructionChoiceContext(ledger.MoveReject)))
		mux.Handle("POST "+ti+"/{transferInstructionId}/choice-contexts/withdraw", reg(h.getTransferInstructionChoiceContext(ledger.MoveWithdraw)))
		mux.Handle("POST "+prefix+"/registry/allocation-instruction/v1/allocation-factory", reg(h.getAllocationFactory))
		al := prefix + "/registry/allocations/v1/{allocationId}/choice-contexts"
		mux.Handle("POST "+al+"/execute-transfer", reg(h.getAllocationChoiceContext(ledger.AllocationExecute)))
		mux.Handle("POST "+al+"/withdraw", reg(h.getAllocationChoiceContext(ledger.AllocationWithdraw)))
		mux.Handle("POST "+al+"/cancel", reg(h.getAllocationChoiceContext(ledger.AllocationCancel)))
		md := prefix + "/registry/metadata/v1"
		mux.Handle("GET "+md+"/info", reg(h.getRegistryInfo))
		mux.Handle("GET "+md+"/instruments", reg(h.listInstruments))
		mux.Handle("GET "+md+"/instruments/{instrumentId}", reg(h.getInstrument))
	}

	// Scan's own endpoints (api_scan.go), at the root and /api/scan.
	for route, fn := range h.scanRoutes() {
		method, path, _ := strings.Cut(route, " ")
		mux.Handle(method+" "+path, h.api(fn))
		mux.Handle(method+" /api/scan"+path, h.api(fn))
	}

	// The validator's scan proxy (api_scan_proxy.go).
	for route, fn := range h.scanProxyRoutes() {
		method, path, _ := strings.Cut(route, " ")
		mux.Handle(method+" /v0/scan-proxy"+path, h.user(fn))
	}

	// Automations (jobs, round clock, merge delegation).
	mux.Handle("GET /v0/admin/jobs", h.admin(h.listJobs))
	mux.Handle("POST /v0/admin/devnet/advance-rounds", h.admin(h.advanceRounds))
	h.devnetSnapshotRoutes(mux) // snapshots, restore, reset: development network only
	mux.Handle("GET /v0/updates/stream", h.user(h.updateStream))
	mux.Handle("GET /v0/admin/merge-progress", h.admin(h.pendingMerges))
	mux.Handle("POST /v0/admin/merge-delegation-proposals/{contract_id}/accept", h.admin(h.acceptMergeDelegation))
	mux.Handle("POST /v0/admin/merge-delegations/airdrop", h.admin(h.airdrop))
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

	root := http.NewServeMux()
	mux.Handle("/", h.unrouted(mux, root)) // 404 and 405 as JSON or a page

	api := h.walletGate(mux)
	root.Handle("/api/validator/", http.StripPrefix("/api/validator", api))
	root.Handle("/", api)
	if h.ui != nil {
		h.uiRoutes(root) // the web wallet (handlers/ui.go)
	}
	mws := append([]web.Middleware{web.RequestID, web.Logger(h.log)}, h.obs...)
	return web.Chain(h.restoreGate(root), append(mws, web.Recover(h.log), web.SecurityHeaders, web.Compress, web.RejectNUL)...)
}

// readyzDetails lets an admin's authenticated /readyz see the details
// (web.WithHealthDetails); without a valid admin token it is the plain
// probe, never a 401, so probes with stray headers keep working.
func (h *Handler) readyzDetails(health http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && h.auth != nil {
			if c, err := h.auth.Verify(r.Context(), strings.TrimSpace(raw)); err == nil && h.l.IsAdmin(c.Subject) {
				r = web.WithHealthDetails(r)
			}
		}
		health.ServeHTTP(w, r)
	})
}

func trimmed(s string) string { return strings.TrimSpace(s) }
