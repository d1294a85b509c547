-- Issue 29: a brief's response is stored deflated by the server, not as jsonb.
--
-- Every brief and every hook call stores its response (about 27 kB of JSON at the default 4,000
-- tokens on the bench's corpus). As jsonb, Postgres parsed it and pglz-compressed it on every
-- insert: 1.2 ms of its CPU a brief, about an eighth of what a whole brief costs it
-- (docs/eval.md, "Session 19"). The server now deflates the JSON itself (src/brief/stored.ts)
-- and Postgres stores the bytes as they are: 0.45 ms, and 4.1 kB a brief instead of 6.1.
--
-- What SQL reads of a brief stays in columns: its receipt line and the ids of the items it sent
-- (the tiers' and the proposed group's), for the console's lists. The request stays jsonb.
-- Briefs stored before keep their jsonb response; a row holds exactly one of the two.
alter table doco.briefs
  add column response_deflated bytea,
  add column receipt text,
  add column item_ids text[];

-- Already compressed: Postgres should not try again, nor sample it when it analyses the table.
alter table doco.briefs alter column response_deflated set storage external;
alter table doco.briefs alter column response_deflated set statistics 0;
alter table doco.briefs alter column response drop not null;

update doco.briefs
   set receipt = coalesce(response->>'receipt', ''),
       item_ids = array(
         select jsonb_path_query(response, '$.tiers.*[*].id') #>> '{}'
         union all
         select jsonb_path_query(response, '$.proposed[*].id') #>> '{}'
       );

alter table doco.briefs
  alter column receipt set not null,
  alter column item_ids set not null,
  add constraint briefs_one_response check (num_nonnulls(response, response_deflated) = 1);

comment on column doco.briefs.response is 'The response as jsonb, for briefs stored before migration 0032; null since.';
comment on column doco.briefs.response_deflated is 'The response as JSON, deflated (raw DEFLATE, RFC 1951) by the server; read it through GET /api/v1/briefs/:id.';
comment on column doco.briefs.receipt is 'The brief''s receipt line.';
comment on column doco.briefs.item_ids is 'The ids of the items the brief sent: its tiers'' and its proposed group''s.';
