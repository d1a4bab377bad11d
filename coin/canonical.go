package coin

import "regexp"

// canonicalRE is a decimal as JSON carries one (Daml's Numeric in the
// Ledger API's JSON, the wallet APIs' amounts): an optional minus, digits
// without a leading zero (bar "0" itself), and an optional "." with
// digits. No spaces, "+", bare "." or exponent.
var canonicalRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// checkCanonical refuses s unless it is a canonical decimal.
func checkCanonical(s string) error {
	if canonicalRE.MatchString(s) {
		return nil
	}
	return badAmount("%s is not a decimal as JSON writes one: digits, then optionally \".\" and digits, "+
		"with no spaces, \"+\" sign, leading zeros or bare \".\" (e.g. \"0.5\", \"10\")", quoted(s))
}

// ParseCanonical parses a decimal a client wrote into JSON: canonical
// only (checkCanonical), then bounded as ParseAmount bounds it. Every
// JSON API reads its amounts through it, whether the field is an Amount
// or a string; ParseAmount stays the web forms' forgiving reader.
func ParseCanonical(s string) (Amount, error) {
	if err := checkCanonical(s); err != nil {
		return Zero, err
	}
	return ParseAmount(s)
}
