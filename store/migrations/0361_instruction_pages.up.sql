-- A party's pending transfer instructions are listed a page at a time,
-- newest first (issue 38's rerun: 640 instructions of 1e-10 CC made the
-- receiver's Offers page 1.2 MB). These serve the page and its count.
CREATE INDEX transfer_instructions_receiver_newest ON transfer_instructions (receiver, status, created_offset);
CREATE INDEX transfer_instructions_sender_newest ON transfer_instructions (sender, status, created_offset);
