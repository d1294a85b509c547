-- Issue 8: the full-text seed ranks every record matching the ask's rarer words with ts_rank,
-- which reads each match's search_tsv. Stored EXTENDED, a record whose row outgrew the TOAST
-- target had its tsvector moved out of line first (it is the widest column and does not
-- compress), so each ranked match cost a lookup in the TOAST table: 57% of the brief bench's
-- 100k records, and 16-19 ms of a 5,000-match ranking (11 ms inline). MAIN keeps it in the row
-- and moves the prose out instead, which the brief reads only for its pool of 60-90 records.
-- No table rewrite: rows take the new storage as they are written (a record's next version).
alter table doco.nodes alter column search_tsv set storage main;
