-- Agents' writes wait for a person: a record or edge written by an `agent:` principal (the MCP
-- token `doco hooks install` mints) lands as queued unless its collection, or failing that its
-- workspace, lets agents activate. The rule itself lives in sql/agent_review.sql.

alter table doco.workspaces add column agents_may_activate boolean not null default false;
alter table doco.collections add column agents_may_activate boolean;
comment on column doco.workspaces.agents_may_activate is 'true: records and edges written by agent: principals may go live without review in every collection that does not say otherwise.';
comment on column doco.collections.agents_may_activate is 'true / false: whether agent: principals may make records and edges of this collection live without review; null: the workspace decides.';
