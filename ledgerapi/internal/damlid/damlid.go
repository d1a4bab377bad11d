// Package damlid holds the Daml identifiers the Ledger API's packages
// share: the package ids of the package names ccwallet answers for (the
// token standard's as released, the coin's own derived from the name),
// the names back from the ids, the "#name:Module:Entity" form and the
// resolution of a template or interface id a client sent.
package damlid

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// packageIDs are the package ids of the token standard's interface
// packages (v1.0.0, as vetted on the real network) and of the utility
// packages below, so clients that name them by package id find them.
var packageIDs = map[string]string{
	"splice-api-token-metadata-v1":               "4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f",
	"splice-api-token-holding-v1":                "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b",
	"splice-api-token-allocation-v1":             "93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d",
	"splice-api-token-allocation-instruction-v1": "275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520",
	"splice-api-token-allocation-request-v1":     "6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193",
	"splice-api-token-transfer-instruction-v1":   "55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281",
	// The utility and test packages the wallet SDK's examples look for by
	// id before they use them (isPackageUploaded), as released (1.0.0).
	"splice-util-token-standard-wallet": "1da198cb7968fa478cfa12aba9fdf128a63a8af6ab284ea6be238cf92a3733ac",
	"splice-util-featured-app-proxies":  "81dd5a9e5c02d0de03208522a895fb85eeb12fbea4aca7c4ad0ad106f3b0bfce",
	"splice-token-test-trading-app":     "e5c9847d5a88d3b8d65436f01765fc5ba142cc58529692e2dacdd865d9939f71",
}

// PackageID is the package id of a package name. The coin's own packages
// (splice-amulet, splice-wallet, ...) have no DAR here: their id is a
// SHA-256 of the name, stable across nodes and releases of ccwallet.
func PackageID(name string) string {
	if id, ok := packageIDs[name]; ok {
		return id
	}
	sum := sha256.Sum256([]byte("ccwallet package " + name))
	return hex.EncodeToString(sum[:])
}

// knownTemplates and knownInterfaces are apiread's lists, made once:
// every submission resolves its command's id against them.
var (
	knownTemplates  = apiread.Templates()
	knownInterfaces = apiread.Interfaces()
)

// packageNames maps package ids back to names, for every package of a
// known template or interface and of packageIDs.
var packageNames = func() map[string]string {
	m := map[string]string{}
	for _, id := range append(slices.Clip(knownTemplates), knownInterfaces...) {
		name := NameOf(id)
		m[PackageID(name)] = name
	}
	for name, id := range packageIDs {
		m[id] = name
	}
	return m
}()

// NameOf is the package name of an id in "#name:Module:Entity" form.
func NameOf(id string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(id, "#"), ":")
	return name
}

// ByPackageID renders a "#name:Module:Entity" id in the package-id form
// the API answers with.
func ByPackageID(id string) string {
	name, rest, _ := strings.Cut(strings.TrimPrefix(id, "#"), ":")
	return PackageID(name) + ":" + rest
}

// Kind says what an identifier names.
type Kind int

const (
	Template Kind = iota
	Interface
)

// Resolve turns a template or interface id the client sent, by package
// name or package id, into the ledger's "#name:Module:Entity" form.
func Resolve(field, id string, want Kind) (string, error) {
	parts := strings.Split(id, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", canton.InvalidArgument("%s: %q is not an identifier of the form <package>:<Module.Name>:<Entity>, e.g. #splice-amulet:Splice.Amulet:Amulet", field, id)
	}
	name, ok := strings.CutPrefix(parts[0], "#")
	if !ok {
		if name, ok = packageNames[parts[0]]; !ok {
			return "", canton.Err(canton.CodePackageNamesNotFound, "package %s of %s is not known to this participant", parts[0], field)
		}
	}
	canon := "#" + name + ":" + parts[1] + ":" + parts[2]
	known, what := knownTemplates, "template"
	if want == Interface {
		known, what = knownInterfaces, "interface"
	}
	for _, k := range known {
		if k == canon {
			return canon, nil
		}
	}
	if _, ok := packageNames[PackageID(name)]; !ok {
		return "", canton.Err(canton.CodePackageNamesNotFound, "package %s of %s is not known to this participant", name, field)
	}
	return "", canton.Err(canton.CodeTemplatesNotFound, "%s %s is not known to this participant; known %ss: %s", what, canon, what, strings.Join(known, ", "))
}

// PackageName is the name of the package id, for every package of a
// known template or interface and of the token standard's; false for
// another id.
func PackageName(id string) (string, bool) {
	name, ok := packageNames[id]
	return name, ok
}

// PackageIDs are the ids of every package PackageName knows, sorted.
func PackageIDs() []string { return slices.Sorted(maps.Keys(packageNames)) }
