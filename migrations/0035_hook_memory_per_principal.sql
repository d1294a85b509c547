-- A hook session's memory is its principal's own. Keyed by workspace and session id alone, any
-- token of the workspace that knew an agent's session id could post hook events under it: mark
-- the session's must-obey rules as already sent, so its next brief left them out, or move when
-- its checkout's "changed since the last session" starts (found by a hostile-input review).
-- Sessions, what they were sent and the checkouts' last sessions are now per principal, the
-- agent's own (`agent:<agent>@<checkout>`).
--
-- What the tables held has no principal to move it to, and is only memory: it goes. The next
-- brief of a running session sends everything again once; each checkout's next session is its
-- first (what changed in the last 7 days).

delete from doco.hook_sent;
delete from doco.hook_sessions;

alter table doco.hook_sent drop constraint hook_sent_workspace_id_session_id_fkey;
alter table doco.hook_sent drop constraint hook_sent_pkey;
alter table doco.hook_sessions drop constraint hook_sessions_pkey;

alter table doco.hook_sessions add column principal_id text not null references doco.nodes(id);
alter table doco.hook_sessions add primary key (workspace_id, principal_id, session_id);
alter table doco.hook_sent add column principal_id text not null;
alter table doco.hook_sent add primary key (workspace_id, principal_id, session_id, node_id);
alter table doco.hook_sent add foreign key (workspace_id, principal_id, session_id)
  references doco.hook_sessions (workspace_id, principal_id, session_id) on delete cascade;

drop index doco.hook_sessions_by_checkout;
create index hook_sessions_by_checkout on doco.hook_sessions (workspace_id, principal_id, (coalesce(checkout, cwd)), last_seen_at desc);

comment on column doco.hook_sessions.principal_id is 'The principal whose token made the hook calls (the agent''s own): a session, what it was sent and its checkout''s last session are that principal''s alone.';
comment on column doco.hook_sessions.checkout is 'The repository and branch the session works on (from doco hook); null: its cwd stands for it. "Changed since the last session" is per principal and checkout.';
