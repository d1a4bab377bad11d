package ledger

// IsAdminAs reports whether user, with a token asking to act as actAs
// ("" for none), has the wallet admin's rights. An impersonation token
// acts as its party and only as it (docs/devnet.md): it lists no users,
// grants no rights and reaches no admin endpoint, on the JSON APIs and
// the Ledger API alike.
func (l *Ledger) IsAdminAs(user, actAs string) bool {
	return actAs == "" && l.IsAdmin(user)
}
