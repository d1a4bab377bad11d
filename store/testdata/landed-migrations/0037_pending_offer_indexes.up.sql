-- The web wallet's live updates ask, every second or so for each party
-- with an open page, how many offers it has open; its home page lists the
-- offers it receives. Without these both would read every offer the party
-- ever sent or received (the other indexes lead with the tracking id).
CREATE INDEX transfer_offers_receiver_status ON transfer_offers (receiver, status);
CREATE INDEX transfer_offers_sender_status ON transfer_offers (sender, status);
