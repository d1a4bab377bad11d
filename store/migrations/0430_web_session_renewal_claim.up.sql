-- Until when one replica renews a web session's tokens at the provider:
-- replicas sharing the database take the renewal in turn (a
-- compare-and-set on the refresh token), since a provider that rotates
-- refresh tokens ends the login when one is used twice. NULL: nobody.
ALTER TABLE web_sessions ADD COLUMN renewal_claimed_until {{ts}};
