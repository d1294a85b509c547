-- The console (DESIGN §7a, issue 12): one-time sign-in codes, browser sessions, the key that
-- signs their cookies, the chain checks the overview shows, and when each token was last used.

-- A one-time sign-in link (`doco console`, and the line `doco serve` prints at start): a
-- short-lived code, stored hashed, exchanged once for a session. Redeeming marks it used in the
-- same statement that checks it, so two redemptions of one code cannot both succeed.
create table doco.console_codes (
  code_hash    text primary key,
  workspace_id text not null references doco.workspaces(id),
  principal_id text not null references doco.nodes(id),
  scope        text not null check (scope in ('read', 'write')),
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null,
  used_at      timestamptz,
  check (expires_at > created_at)
);
comment on table doco.console_codes is 'One-time console sign-in codes (sha256 of the code): short-lived, single use.';

-- A signed-in browser. The cookie carries the session's random id (signed); the row holds its
-- sha256, so a database read cannot sign anyone in. A session made by pasting a token ends when
-- that token is revoked.
create table doco.console_sessions (
  id_hash       text primary key,
  workspace_id  text not null references doco.workspaces(id),
  principal_id  text not null references doco.nodes(id),
  scope         text not null check (scope in ('read', 'write')),
  token_id      text references doco.tokens(id),
  created_at    timestamptz not null default now(),
  expires_at    timestamptz not null,
  signed_out_at timestamptz
);
comment on table doco.console_sessions is 'Console sessions (sha256 of the cookie''s id); a pasted token''s session ends with the token.';

-- The key that signs console cookies and CSRF tokens: one per database, so every `doco serve`
-- behind a load balancer accepts the others' cookies. Made on first use.
create table doco.console_keys (
  id         integer primary key check (id = 1),
  secret     text not null check (length(secret) >= 32),
  created_at timestamptz not null default now()
);
comment on table doco.console_keys is 'The secret console cookies and CSRF tokens are signed with (one row).';

-- Every hash-chain check the console ran, so the overview shows the last result and its time
-- without recomputing every chain on each page view.
create table doco.chain_checks (
  id           bigserial primary key,
  workspace_id text not null references doco.workspaces(id),
  principal_id text references doco.nodes(id),
  checked_at   timestamptz not null default now(),
  intact       boolean not null,
  broken_links integer not null,
  first_break  text,
  elapsed_ms   integer not null
);
create index chain_checks_latest on doco.chain_checks (workspace_id, checked_at desc);
comment on table doco.chain_checks is 'Hash-chain verifications run from the console, per workspace: the overview shows the latest.';

alter table doco.tokens add column last_used_at timestamptz;
comment on column doco.tokens.last_used_at is 'When the token last authenticated a request, to the minute (written at most once a minute).';

-- The review queue reads drafting and queued records newest first.
create index nodes_review on doco.nodes (workspace_id, updated_at desc) where lifecycle in ('drafting', 'queued');
