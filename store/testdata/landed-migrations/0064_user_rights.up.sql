-- The Ledger API's changes to its users' rights (POST and PATCH
-- /v2/users/{id}/rights, PATCH /v2/users/{id}). A wallet user has by
-- default CanActAs its party, and a wallet admin ParticipantAdmin; a row
-- with granted true adds a right, one with granted false takes a default
-- away. kind is CanActAs, CanReadAs (party set), CanReadAsAnyParty,
-- ParticipantAdmin, or Deactivated (granted: the user is deactivated).
CREATE TABLE user_rights (
    user_name TEXT NOT NULL,
    kind      TEXT NOT NULL,
    party     TEXT NOT NULL,
    granted   BOOLEAN NOT NULL,
    PRIMARY KEY (user_name, kind, party)
);
