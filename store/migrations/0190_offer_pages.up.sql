-- A receiver's offers are listed a page at a time, newest first, and one
-- sender's open offers to one receiver are counted against a cap (issue
-- 38). These indexes serve both without reading a party's every offer.
CREATE INDEX transfer_offers_receiver_newest ON transfer_offers (receiver, status, created_at, contract_id);
CREATE INDEX transfer_offers_sender_newest ON transfer_offers (sender, status, created_at, contract_id);
CREATE INDEX transfer_offers_pair ON transfer_offers (sender, receiver, status);
