-- Live web-wallet login sessions, shared by every replica so a login on
-- one is honoured (and a logout final) on all.
CREATE TABLE web_sessions (
    id         TEXT PRIMARY KEY,
    user_name  TEXT NOT NULL,
    csrf       TEXT NOT NULL,
    id_token   TEXT NOT NULL,
    created_at {{ts}} NOT NULL,
    seen_at    {{ts}} NOT NULL
);
CREATE INDEX web_sessions_seen ON web_sessions (seen_at);
