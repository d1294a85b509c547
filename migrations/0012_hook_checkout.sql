-- Session memory keys on the checkout — the repository (git common dir) and branch that
-- `doco hook` reports — rather than the cwd, so a subfolder of a checkout is that checkout.
-- A session that did not say (an HTTP hook, a psql insert, one recorded before) is keyed by cwd.

alter table doco.hook_sessions add column checkout text;
create index hook_sessions_by_checkout on doco.hook_sessions (workspace_id, (coalesce(checkout, cwd)), last_seen_at desc);
comment on column doco.hook_sessions.checkout is 'The repository and branch the session works on (from doco hook); null: its cwd stands for it. "Changed since the last session" is per checkout.';
