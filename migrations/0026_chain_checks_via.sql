-- Hash-chain checks whoever ran them (issue 26): `doco verify` records its result beside the
-- console's Re-verify, one row per workspace (src/graph/chain-checks.ts), so the overview shows
-- the last verification and where it was run from.

alter table doco.chain_checks add column via text not null default 'console' check (via in ('console', 'cli'));
comment on table doco.chain_checks is 'Hash-chain verifications per workspace, run from the console (Re-verify) or by doco verify: the overview shows the latest.';
comment on column doco.chain_checks.via is 'Where the check was run: console (principal_id is who clicked Re-verify) or cli (doco verify, no principal; elapsed_ms is the whole database''s scan).';
