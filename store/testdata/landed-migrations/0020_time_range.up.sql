-- Times past the range requests are held to (ledger.MaxTime,
-- 9999-12-31T23:59:59.999999Z) were taken before the bound existed (issue
-- 21). SQLite keeps them as text with a five-digit year that it cannot
-- read back, which broke every read of the offer's or instruction's
-- parties; they become the end of the range, still open and still
-- answerable, on both engines alike.
{{sqlite}}UPDATE transfer_offers SET expires_at = '9999-12-31 23:59:59.999999+00:00' WHERE expires_at NOT GLOB '[0-9][0-9][0-9][0-9]-*';
{{sqlite}}UPDATE transfer_instructions SET execute_before = '9999-12-31 23:59:59.999999+00:00' WHERE execute_before NOT GLOB '[0-9][0-9][0-9][0-9]-*';
{{sqlite}}UPDATE holdings SET lock_expires_at = '9999-12-31 23:59:59.999999+00:00' WHERE lock_expires_at NOT GLOB '[0-9][0-9][0-9][0-9]-*';
{{postgres}}UPDATE transfer_offers SET expires_at = '9999-12-31 23:59:59.999999+00' WHERE expires_at > '9999-12-31 23:59:59.999999+00';
{{postgres}}UPDATE transfer_instructions SET execute_before = '9999-12-31 23:59:59.999999+00' WHERE execute_before > '9999-12-31 23:59:59.999999+00';
{{postgres}}UPDATE holdings SET lock_expires_at = '9999-12-31 23:59:59.999999+00' WHERE lock_expires_at > '9999-12-31 23:59:59.999999+00';
