-- Kept comments in the remote's order (issue 28, deliverable 4; docs/jobs.md, connectors__delivery).
-- Numbered 0028: 0027 is another branch's.
--
-- A retried webhook delivery used to put a comment's older text back after its edit, or bring a
-- deleted comment back. Each kept comment (a GitHub comment, review or review comment; a Slack
-- message) now carries the remote's time of its last change, and a deletion leaves a tombstone:
-- the comment id with its deletion time and no text. The trigger of sql/connectors.sql
-- (tg_connector_item_comments__remote_order) refuses an older write, from the app or from psql.

alter table doco.connector_item_comments
  add column remote_updated_at timestamptz,
  add column deleted boolean not null default false,
  add constraint connector_item_comments_tombstone_has_no_text check (not deleted or (body = '' and author = ''));

comment on column doco.connector_item_comments.remote_updated_at is 'When the remote last changed the comment (GitHub updated_at or submitted_at; Slack edited.ts, else ts), or deleted it for a tombstone; null when its source gave no time. A write older than it is refused.';
comment on column doco.connector_item_comments.deleted is 'A tombstone: deleted at the remote (a GitHub review dismissed), no text; a write not newer than its remote_updated_at is refused. Kept as long as the item''s other comments.';
comment on column doco.connector_item_comments.body is 'The text the record shows; empty for a tombstone, and for a comment whose text is not kept (it held a credential, or had no words).';
