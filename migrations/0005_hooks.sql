-- Agent hooks (DESIGN §7): per-session memory of what a hook already injected, so a session is
-- not sent the same records again, and the sessions of each checkout, for "what changed since
-- the last session".

create table doco.hook_sessions (
  workspace_id text not null references doco.workspaces(id),
  session_id   text not null check (length(session_id) between 1 and 200),
  agent        text not null check (agent in ('claude-code','codex','gemini')),
  cwd          text not null,
  started_at   timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  primary key (workspace_id, session_id)
);
create index hook_sessions_checkout on doco.hook_sessions (workspace_id, cwd, last_seen_at desc);
comment on table doco.hook_sessions is 'Agent sessions seen by the hooks endpoint; cwd is the checkout the agent runs in.';
comment on column doco.hook_sessions.last_seen_at is 'The last hook call of the session: "changed since the last session" starts here.';

create table doco.hook_sent (
  workspace_id text not null,
  session_id   text not null,
  node_id      text not null,
  version      integer not null,
  sent_at      timestamptz not null default now(),
  primary key (workspace_id, session_id, node_id),
  foreign key (workspace_id, session_id) references doco.hook_sessions(workspace_id, session_id) on delete cascade
);
comment on table doco.hook_sent is 'Items a hook injected into a session, at the version sent; a changed version is sent again.';
comment on column doco.hook_sent.node_id is 'A record id, or a brief item id that is not a record (a collection goal or policy).';
