-- The provider's refresh token of a web session (sealed by the wallet with
-- its session secret) and when the access token it last got expires: the
-- session is renewed at the provider before then, and ends when the
-- provider refuses.
ALTER TABLE web_sessions ADD COLUMN refresh_token TEXT NOT NULL DEFAULT '';
ALTER TABLE web_sessions ADD COLUMN token_expiry {{ts}};
