package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/ledger/validators"
	"github.com/ccwallet/ccwallet/web"
)

// `serve --localnet`: LocalNet's layout in one process, so code written
// for Splice's LocalNet (and the wallet SDK's localNet* defaults) runs
// unchanged. One network (the ledger: rounds, rules, DSO, registry) and
// two validators on it, each with its own operator party, wallet port
// and JSON Ledger API:
//
//	app user:      Ledger API :2975, validator and wallet :2000
//	app provider:  Ledger API :3975, validator and wallet :3000
//	scan:          :4000, /api/scan (the app user's scan; the scan proxy
//	               is under each validator's /api/validator/v0/scan-proxy)
//
// LocalNet's test authentication is accepted beside ours: HS256 tokens
// signed with the published secret "unsafe" for the audience
// https://canton.network.global; their user ledger-api-user is each
// validator's operator user, an admin. Each validator has its own users
// (as each of LocalNet's participants): ledger-api-user on 2975 is not
// the one on 3975. A development network's only; every start warns
// about it.

// LocalNet's published test authentication.
const (
	localNetSecret   = "unsafe"
	localNetAudience = "https://canton.network.global"
	localNetUser     = "ledger-api-user"
	// localNetProviderHint is the app provider validator's operator hint.
	localNetProviderHint = "app-provider-1"
)

// localNetDefaultAddrs are LocalNet's ports, in the order of
// --localnet-listen: the app user's wallet and Ledger API, the app
// provider's wallet and Ledger API, scan.
var localNetDefaultAddrs = []string{":2000", ":2975", ":3000", ":3975", ":4000"}

// localNetAddrs are the addresses the app provider and scan listen on,
// once bound.
type localNetAddrs struct {
	ProviderApp, ProviderLedgerAPI, Scan string
	Provider                             string // the app provider's operator party
}

// localNetFlags are serve's --localnet flags.
type localNetFlags struct {
	on     *bool
	listen *string
}

func registerLocalNetFlags(fs *flag.FlagSet) localNetFlags {
	return localNetFlags{
		on: fs.Bool("localnet", false, "serve LocalNet's layout: app user on 2975/2000, app provider on 3975/3000, scan on 4000, "+
			"with LocalNet's test authentication (development network only; docs/devnet.md)"),
		listen: fs.String("localnet-listen", "", "with --localnet: five comma-separated addresses replacing :2000,:2975,:3000,:3975,:4000 (tests)"),
	}
}

// apply sets the configuration --localnet (or localNet: true) asks for:
// the app user's ports, and LocalNet's operator user among the admins.
func (f localNetFlags) apply(cfg *Config) {
	if *f.on {
		cfg.LocalNet = true
	}
	if !cfg.LocalNet {
		return
	}
	cfg.localNetAddrs = localNetDefaultAddrs
	if *f.listen != "" {
		cfg.localNetAddrs = strings.Split(*f.listen, ",")
	}
	if len(cfg.localNetAddrs) == len(localNetDefaultAddrs) {
		cfg.Listen, cfg.LedgerAPIListen = cfg.localNetAddrs[0], cfg.localNetAddrs[1]
	}
	if !slices.Contains(cfg.ValidatorWalletUsers, localNetUser) {
		cfg.ValidatorWalletUsers = append(cfg.ValidatorWalletUsers, localNetUser)
	}
}

// checkLocalNet adds LocalNet's refusals and warning to check's.
func (c Config) checkLocalNet(warnings []string, errs []error) ([]string, []error) {
	if !c.LocalNet {
		return warnings, errs
	}
	if !c.DevNet() {
		return warnings, append(errs, fmt.Errorf("localNet: LocalNet's layout and its test authentication (HS256 with the published secret %q) "+
			"are only for a development network (network: devnet), this is %s", localNetSecret, c.Network))
	}
	if c.localNetAddrs != nil && len(c.localNetAddrs) != len(localNetDefaultAddrs) {
		errs = append(errs, fmt.Errorf("--localnet-listen: give %d comma-separated addresses (app user wallet, app user Ledger API, "+
			"app provider wallet, app provider Ledger API, scan), not %d", len(localNetDefaultAddrs), len(c.localNetAddrs)))
	}
	if c.LedgerAPIListen == "" {
		errs = append(errs, errors.New("--localnet: the JSON Ledger API cannot be off, LocalNet's clients use it"))
	}
	return append(warnings, fmt.Sprintf("localNet: LocalNet's test authentication is on: HS256 tokens signed with the published shared secret %q "+
		"for the audience %s are accepted, so anyone who can reach these ports can act as any user, %s (both validators' operator, an admin) included; "+
		"never expose them beyond this machine", localNetSecret, localNetAudience, localNetUser)), errs
}

// localNetAuth is LocalNet's authentication for the verifier, when on.
func (c Config) localNetAuth() *web.SharedSecretAuth {
	if !c.LocalNet || !c.DevNet() {
		return nil
	}
	return &web.SharedSecretAuth{Secret: []byte(localNetSecret), Audience: localNetAudience}
}

// openLocalNet opens, with --localnet, the app provider's validator on
// the network, before the automations start (they run its own too).
func (s *serving) openLocalNet(ctx context.Context) error {
	if !s.cfg.LocalNet {
		return nil
	}
	pv, err := validators.Add(ctx, s.l, localNetProviderHint, s.cfg.ValidatorWalletUsers)
	if err != nil {
		return err
	}
	s.provider = s.w.ForValidator(pv)
	return nil
}

// listenLocalNet adds, with --localnet, the app provider validator's
// wallet port and Ledger API and the scan port; app is the app user's
// app handler, whose /api/scan scan serves.
func (s *serving) listenLocalNet(ctx context.Context, env envVars, verifier *web.Verifier, app http.Handler) error {
	if !s.cfg.LocalNet {
		return nil
	}
	addrs := s.cfg.localNetAddrs
	pw := s.provider
	pv := pw.Ledger
	var err error
	r := &s.ready.LocalNet
	if r.ProviderApp, err = s.listenApp("provider-app", addrs[2], nil, func(bound string) (http.Handler, error) {
		return s.appHandler(ctx, env, verifier, pw, "http://"+displayAddr(bound)+"/", false)
	}); err != nil {
		return err
	}
	if r.ProviderLedgerAPI, err = s.listenLedgerAPIOf("provider-ledger-api", addrs[3], nil, verifier, pw); err != nil {
		return err
	}
	if r.Scan, err = s.listen("scan", addrs[4], nil, web.Guard(s.cfg.Web.clientLimits(), scanOnly(app))); err != nil {
		return err
	}
	s.ready.LocalNet.Provider = string(pv.Operator())
	s.log.Info("localnet: app user and app provider validators on one network",
		"app_user_wallet", s.ready.App, "app_user_ledger_api", s.ready.LedgerAPI, "app_user_operator", s.l.Operator(),
		"app_provider_wallet", s.ready.LocalNet.ProviderApp, "app_provider_ledger_api", s.ready.LocalNet.ProviderLedgerAPI,
		"app_provider_operator", pv.Operator(), "scan", s.ready.LocalNet.Scan)
	return nil
}

// scanOnly serves h's scan API (/api/scan/...) and nothing else, as
// LocalNet's scan port does.
func scanOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/scan/") {
			web.WriteError(w, http.StatusNotFound, "not found: this is the scan port; its API is under /api/scan")
			return
		}
		h.ServeHTTP(w, r)
	})
}
