// Comments, reviews and thread replies join their item's record text (docs/connectors.md), bounded: the
// newest COMMENTS_SHOWN, each cut to COMMENT_CHARS. They are kept beside the item
// (doco.connector_item_comments) so every rewrite of the record, from a webhook or a sweep,
// shows them. A comment holding a credential is not kept (reported instead), so one leaky
// comment never freezes its item's record. A Slack thread keeps its root message here too.
//
// Each write carries the remote's time of the comment's last change when its source gives one,
// and a deletion leaves a tombstone: sql/connectors.sql refuses a write older than what is kept,
// so a retried delivery never undoes a newer edit or deletion (docs/jobs.md, connectors__delivery).
import type { SecretKind } from '../text/secrets/detector.js';
import { findSecretsInFields } from '../text/secrets/fields.js';
import type { Queryable } from './store.js';

export const COMMENTS_SHOWN = 20;
export const COMMENT_CHARS = 1_000;

export interface ItemComment {
  author: string;
  body: string;
}

export interface CommentKey {
  workspaceId: string;
  kind: string;
  externalId: string;
}

export interface CommentToKeep {
  key: CommentKey;
  commentId: string;
  comment: ItemComment;
  /**
   * When the remote last changed the comment (ISO 8601). A write older than the kept one is
   * refused; without it the write is not checked (as before the rule).
   */
  remoteAt?: string | undefined;
  /** Longer than COMMENT_CHARS (a Slack thread's root message is the item's own text). */
  maxChars?: number;
}

export interface KeptComments {
  /** External ids of the items whose shown comments changed (a new one, new text, or one taken out). */
  changed: Set<string>;
  secrets: { external_id: string; comment_id: string; kind: SecretKind }[];
}

interface CommentRow {
  workspace_id: string;
  kind: string;
  external_id: string;
  comment_id: string;
  author: string;
  /** '' when the text is not kept: it held a credential, had no words, or the comment was deleted. */
  body: string;
  deleted: boolean;
  remote_updated_at: string | null;
}

/**
 * Keeps (or replaces) comments in one statement; an unchanged comment writes nothing, one older
 * than the kept one is refused. One holding a credential or with no text is kept without its
 * text (an edit that added a credential takes the old text out too), at its time, so an older
 * copy of its clean text cannot come back either.
 */
export async function keepComments(q: Queryable, comments: CommentToKeep[]): Promise<KeptComments> {
  const kept: KeptComments = { changed: new Set(), secrets: [] };
  const rows: CommentRow[] = [];
  for (const c of newestOfEach(comments)) {
    const body = c.comment.body.trim().slice(0, c.maxChars ?? COMMENT_CHARS);
    const found = findSecretsInFields({ author: c.comment.author, body });
    if (found.length)
      kept.secrets.push(
        ...[...new Set(found.map((f) => f.kind))].map((kind) => ({ external_id: c.key.externalId, comment_id: c.commentId, kind })),
      );
    const shown = !found.length && body !== '';
    rows.push(rowOf(c.key, c.commentId, shown ? c.comment.author : '', shown ? body : '', false, c.remoteAt));
  }
  for (const id of await writeComments(q, rows)) kept.changed.add(id);
  return kept;
}

/**
 * One row per comment: a batch that names one twice (a root read from history and again from
 * its replies) keeps the newest by remote time, else the last, as one statement cannot write a
 * row twice.
 */
function newestOfEach(comments: CommentToKeep[]): CommentToKeep[] {
  const newest = new Map<string, CommentToKeep>();
  for (const c of comments) {
    const id = `${c.key.workspaceId}\u0000${c.key.kind}\u0000${c.key.externalId}\u0000${c.commentId}`;
    const seen = newest.get(id);
    if (!seen || !seen.remoteAt || !c.remoteAt || Date.parse(c.remoteAt) >= Date.parse(seen.remoteAt)) newest.set(id, c);
  }
  return [...newest.values()];
}

const rowOf = (
  key: CommentKey,
  commentId: string,
  author: string,
  body: string,
  deleted: boolean,
  remoteAt: string | undefined,
): CommentRow => ({
  workspace_id: key.workspaceId,
  kind: key.kind,
  external_id: key.externalId,
  comment_id: commentId,
  author,
  body,
  deleted,
  remote_updated_at: remoteAt ?? null,
});

/**
 * Upserts the rows; the trigger of sql/connectors.sql skips those older than what is kept. A row
 * is written when its text, its tombstone or its remote time (forward only) changes; `updated_at`
 * (the order loadComments shows) moves only with the text. Returns the external ids whose shown
 * text changed, read against the rows as they were before the statement.
 */
async function writeComments(q: Queryable, rows: CommentRow[]): Promise<string[]> {
  if (!rows.length) return [];
  // Every column is sent as text and cast in SQL: postgres.js would send a boolean array as one
  // boolean, and a time through a JavaScript Date, whose milliseconds lose a Slack ts's microseconds.
  const col = <K extends keyof CommentRow>(k: K) => rows.map((r) => (r[k] === null ? null : String(r[k])));
  const written = await q<{ external_id: string }[]>`
    with incoming as (
      select * from unnest(${col('workspace_id')}::text[], ${col('kind')}::text[], ${col('external_id')}::text[], ${col('comment_id')}::text[],
                           ${col('author')}::text[], ${col('body')}::text[], ${col('deleted')}::text[]::boolean[], ${col('remote_updated_at')}::text[]::timestamptz[])
        as x(workspace_id, kind, external_id, comment_id, author, body, deleted, remote_updated_at)
    ), before as (
      select c.workspace_id, c.kind, c.external_id, c.comment_id, c.author, c.body
        from doco.connector_item_comments c join incoming using (workspace_id, kind, external_id, comment_id)
    ), written as (
      insert into doco.connector_item_comments as c (workspace_id, kind, external_id, comment_id, author, body, deleted, remote_updated_at)
      select workspace_id, kind, external_id, comment_id, author, body, deleted, remote_updated_at from incoming
      on conflict (workspace_id, kind, external_id, comment_id) do update
        set author = excluded.author, body = excluded.body, deleted = excluded.deleted, remote_updated_at = excluded.remote_updated_at,
            updated_at = case when (c.author, c.body) is distinct from (excluded.author, excluded.body) then now() else c.updated_at end
        where (c.author, c.body, c.deleted) is distinct from (excluded.author, excluded.body, excluded.deleted)
           or excluded.remote_updated_at > coalesce(c.remote_updated_at, '-infinity')
      returning c.workspace_id, c.kind, c.external_id, c.comment_id, c.author, c.body
    )
    select distinct w.external_id from written w left join before b using (workspace_id, kind, external_id, comment_id)
     where coalesce(b.body, '') is distinct from w.body or (w.body <> '' and b.author is distinct from w.author)`;
  return written.map((w) => w.external_id);
}

/** Keeps (or replaces) one comment; returns the credential kinds that kept its text out instead. */
export async function keepComment(
  q: Queryable,
  key: CommentKey,
  commentId: string,
  comment: ItemComment,
  remoteAt?: string,
): Promise<SecretKind[]> {
  return (await keepComments(q, [{ key, commentId, comment, remoteAt }])).secrets.map((s) => s.kind);
}

/**
 * Takes a comment out, leaving its tombstone (a comment never seen gets one too, so its late
 * creation stays out); `remoteAt` is when it was deleted, where the source says. True when a
 * shown comment went.
 */
export async function dropComment(q: Queryable, key: CommentKey, commentId: string, remoteAt?: string): Promise<boolean> {
  return (await writeComments(q, [rowOf(key, commentId, '', '', true, remoteAt)])).length > 0;
}

/** Takes out every comment of an item, tombstones too (its record was retired, for good). */
export async function dropAllComments(q: Queryable, key: CommentKey): Promise<void> {
  await q`delete from doco.connector_item_comments where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId}`;
}

/** The newest comments, oldest first (as they read in a thread); tombstones and comments kept without their text are not shown. */
export async function loadComments(q: Queryable, key: CommentKey): Promise<ItemComment[]> {
  const rows = await q<ItemComment[]>`
    select author, body from (
      select author, body, updated_at, comment_id from doco.connector_item_comments
       where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId} and body <> ''
       order by updated_at desc, comment_id desc limit ${COMMENTS_SHOWN}) newest
     order by updated_at, comment_id`;
  return rows.map((r) => ({ author: r.author, body: r.body }));
}

export interface ThreadComments {
  root: ItemComment | undefined;
  /** The newest COMMENTS_SHOWN replies, in the order of their ids. */
  replies: ItemComment[];
  /** All replies kept with their text, shown or not. */
  replyCount: number;
}

/**
 * A thread whose comment ids order it (Slack message ts): its root (the comment `rootId`) and
 * its newest replies, oldest first. An edit keeps a reply in its place. Tombstones and messages
 * kept without their text are neither shown nor counted.
 */
export async function loadThread(q: Queryable, key: CommentKey, rootId: string): Promise<ThreadComments> {
  const rows = await q<{ comment_id: string; author: string; body: string; total: number }[]>`
    select comment_id, author, body, total::int from (
      select comment_id, author, body, count(*) over () - 1 as total,
             row_number() over (order by length(comment_id) desc, comment_id desc) as newest
        from doco.connector_item_comments
       where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId} and body <> '') c
     where comment_id = ${rootId} or newest <= ${COMMENTS_SHOWN + 1}
     order by length(comment_id), comment_id`;
  const root = rows.find((r) => r.comment_id === rootId);
  const replies = rows.filter((r) => r.comment_id !== rootId).slice(-COMMENTS_SHOWN);
  const total = rows[0]?.total ?? 0;
  return {
    root: root && { author: root.author, body: root.body },
    replies: replies.map((r) => ({ author: r.author, body: r.body })),
    replyCount: root ? total : total + 1,
  };
}

/** The prose section the comments make, or '' when there are none. */
export const commentsSection = (comments: ItemComment[], heading = 'Comments') =>
  comments.length
    ? `${heading}:\n${comments.map((c) => `- ${c.author ? `@${c.author}` : 'someone'}: ${c.body.replace(/\s*\n\s*/g, ' ')}`).join('\n')}`
    : '';
