package main

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/handlers"
)

// Synchronizer connection modes (mission 1.7), as the admin page names
// them.
const (
	modeBFT         = "BFT via scan proxy (default)"
	modeTrustedScan = "single trusted scan"
	modeTrustedSeq  = "single trusted sequencer"
	modeTrustedBoth = "single trusted scan and single trusted sequencer"
)

// connectionMode is the synchronizer connection mode the keys select on a
// real network: BFT through the scan proxy unless
// nonSvValidatorTrustSingleScan or useSequencerConnectionsFromScan: false
// asks to trust one super-validator.
func (c Config) connectionMode() string {
	scan := c.NonSvValidatorTrustSingleScan
	seq := c.UseSequencerConnectionsFromScan != nil && !*c.UseSequencerConnectionsFromScan
	switch {
	case scan && seq:
		return modeTrustedBoth
	case scan:
		return modeTrustedScan
	case seq:
		return modeTrustedSeq
	}
	return modeBFT
}

// networkSettings lists the keys that concern a real multi-validator
// network (sponsor, scan, sequencer modes, migration) for the admin page,
// with their effective values and secrets masked. The embedded network has
// one validator and no sponsor, scan or sequencers, so it ignores every one
// of them; networkNotes names those that are set, for the start-up log.
func (c Config) networkSettings(now time.Time) []handlers.NetworkSetting {
	useSeq := "true (default)"
	if c.UseSequencerConnectionsFromScan != nil {
		useSeq = strconv.FormatBool(*c.UseSequencerConnectionsFromScan)
	}
	return []handlers.NetworkSetting{
		{Key: "synchronizer connection mode", Value: c.connectionMode(), Ignored: true},
		{Key: "svSponsorAddress", Env: "SPONSOR_SV_URL", Value: maskURL(c.SvSponsorAddress), Ignored: true},
		{Key: "scanAddress", Env: "TRUSTED_SCAN_URL", Value: maskURL(c.ScanAddress), Ignored: true},
		{Key: "nonSvValidatorTrustSingleScan", Value: strconv.FormatBool(c.NonSvValidatorTrustSingleScan), Ignored: true},
		{Key: "useSequencerConnectionsFromScan", Value: useSeq, Ignored: true},
		{Key: "decentralizedSynchronizerUrl", Value: maskURL(c.DecentralizedSynchronizerURL), Ignored: true},
		{Key: "onboardingSecret", Env: "ONBOARDING_SECRET", Value: onboardingSecretSummary(c.OnboardingSecret, now), Ignored: true},
		{Key: "migration.id", Env: "MIGRATION_ID", Value: strconv.FormatInt(c.Migration.ID, 10), Ignored: true},
		{Key: "migration.migrating", Value: strconv.FormatBool(c.Migration.Migrating), Ignored: true},
	}
}

// onboardingSecretSummary shows whether the secret is set and, when it
// carries its issue time, until when it is valid; never the secret.
func onboardingSecretSummary(s string, now time.Time) string {
	if s == "" {
		return ""
	}
	issued, ok, err := onboardingSecretIssued(s)
	if err != nil || !ok {
		return "set (****)"
	}
	until := issued.Add(onboardingSecretLifetime)
	state := "valid until"
	if now.After(until) {
		state = "expired at"
	}
	return fmt.Sprintf("set (****), issued %s, %s %s", issued.UTC().Format(time.RFC3339), state, until.UTC().Format(time.RFC3339))
}

// maskURL hides a password in a URL's user information.
func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		return u.Redacted()
	}
	return s
}
