-- Each principal keeps its newest sessions only (sql/hooks.sql, `_hook_sessions_keep_newest`): the
-- trigger finds the principal's sessions by when they were last seen, newest first.
create index hook_sessions_by_principal on doco.hook_sessions (workspace_id, principal_id, last_seen_at desc);
comment on index doco.hook_sessions_by_principal is 'A principal''s hook sessions, newest first (the cap on how many it keeps).';
