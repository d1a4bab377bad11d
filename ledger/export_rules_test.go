package ledger

import "context"

// StoreRulesAsBefore rewrites the database as ledgers bootstrapped before
// metaRules left it: no rules in the meta table, and the rules contract's
// payload in the rules' own JSON.
func (l *Ledger) StoreRulesAsBefore(ctx context.Context) error {
	if _, err := l.db.NewDelete().Table("ledger_meta").Where("key = ?", metaRules).Exec(ctx); err != nil {
		return err
	}
	payload := mustJSON(rulesPayload{DSO: l.dso, Config: l.rules, IsDevNet: l.cfg.DevNet})
	_, err := l.db.NewUpdate().Table("contracts").Set("payload = ?", payload).Where("contract_id = ?", l.rulesCID).Exec(ctx)
	return err
}
