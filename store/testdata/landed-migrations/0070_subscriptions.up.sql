-- Subscriptions (Splice.Wallet.Subscriptions) live in contracts with their
-- Daml payloads; this table keeps what the payloads cannot: the app whose
-- hooks the collection calls, the origins a confirm page may redirect to,
-- and the payment automation's last "could not pay" notice. One row per
-- subscription, keyed by its request (the subscription's tracking id).
CREATE TABLE subscription_apps (
    reference     TEXT PRIMARY KEY,
    sender        TEXT NOT NULL,
    app           TEXT NOT NULL DEFAULT '',
    origins       TEXT NOT NULL DEFAULT '',
    unpaid        TEXT NOT NULL DEFAULT '',
    unpaid_at     {{ts}}
);
CREATE INDEX subscription_apps_sender ON subscription_apps (sender);
