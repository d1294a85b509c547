// Comments, reviews and thread replies join their item's record text (docs/connectors.md), bounded: the
// newest COMMENTS_SHOWN, each cut to COMMENT_CHARS. They are kept beside the item
// (doco.connector_item_comments) so every rewrite of the record, from a webhook or a sweep,
// shows them. A comment holding a credential is not kept (reported instead), so one leaky
// comment never freezes its item's record. A Slack thread keeps its root message here too.
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
  /** Longer than COMMENT_CHARS (a Slack thread's root message is the item's own text). */
  maxChars?: number;
}

export interface KeptComments {
  /** External ids of the items whose kept comments changed (a new one, new text, or one taken out). */
  changed: Set<string>;
  secrets: { external_id: string; comment_id: string; kind: SecretKind }[];
}

/**
 * Keeps (or replaces) comments in one statement; an unchanged comment writes nothing. One
 * holding a credential is taken out instead (an edit that added a credential takes the old text
 * out too), and one with no text is taken out.
 */
export async function keepComments(q: Queryable, comments: CommentToKeep[]): Promise<KeptComments> {
  const kept: KeptComments = { changed: new Set(), secrets: [] };
  const rows: { workspace_id: string; kind: string; external_id: string; comment_id: string; author: string; body: string }[] = [];
  const dropped: CommentToKeep[] = [];
  // One row per comment: a batch that names one twice (a root read from history and again from
  // its replies) keeps the last, as one statement cannot write a row twice.
  const last = new Map(comments.map((c) => [`${c.key.workspaceId}\u0000${c.key.kind}\u0000${c.key.externalId}\u0000${c.commentId}`, c]));
  for (const c of last.values()) {
    const body = c.comment.body.trim().slice(0, c.maxChars ?? COMMENT_CHARS);
    const found = findSecretsInFields({ author: c.comment.author, body });
    if (found.length)
      kept.secrets.push(
        ...[...new Set(found.map((f) => f.kind))].map((kind) => ({ external_id: c.key.externalId, comment_id: c.commentId, kind })),
      );
    if (found.length || !body) dropped.push(c);
    else
      rows.push({
        workspace_id: c.key.workspaceId,
        kind: c.key.kind,
        external_id: c.key.externalId,
        comment_id: c.commentId,
        author: c.comment.author,
        body,
      });
  }
  for (const d of dropped) if (await dropComment(q, d.key, d.commentId)) kept.changed.add(d.key.externalId);
  if (!rows.length) return kept;
  const written = await q<{ external_id: string }[]>`
    insert into doco.connector_item_comments ${q(rows, 'workspace_id', 'kind', 'external_id', 'comment_id', 'author', 'body')}
    on conflict (workspace_id, kind, external_id, comment_id) do update set author = excluded.author, body = excluded.body, updated_at = now()
      where (doco.connector_item_comments.author, doco.connector_item_comments.body) is distinct from (excluded.author, excluded.body)
    returning external_id`;
  for (const w of written) kept.changed.add(w.external_id);
  return kept;
}

/** Keeps (or replaces) one comment; returns the credential kinds that kept it out instead. */
export async function keepComment(q: Queryable, key: CommentKey, commentId: string, comment: ItemComment): Promise<SecretKind[]> {
  return (await keepComments(q, [{ key, commentId, comment }])).secrets.map((s) => s.kind);
}

/** Takes a comment out; true when there was one. */
export async function dropComment(q: Queryable, key: CommentKey, commentId: string): Promise<boolean> {
  const gone =
    await q`delete from doco.connector_item_comments where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId} and comment_id = ${commentId}`;
  return gone.count > 0;
}

/** Takes out every comment of an item (its record was retired). */
export async function dropAllComments(q: Queryable, key: CommentKey): Promise<void> {
  await q`delete from doco.connector_item_comments where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId}`;
}

/** The newest comments, oldest first (as they read in a thread). */
export async function loadComments(q: Queryable, key: CommentKey): Promise<ItemComment[]> {
  const rows = await q<ItemComment[]>`
    select author, body from (
      select author, body, updated_at, comment_id from doco.connector_item_comments
       where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId}
       order by updated_at desc, comment_id desc limit ${COMMENTS_SHOWN}) newest
     order by updated_at, comment_id`;
  return rows.map((r) => ({ author: r.author, body: r.body }));
}

export interface ThreadComments {
  root: ItemComment | undefined;
  /** The newest COMMENTS_SHOWN replies, in the order of their ids. */
  replies: ItemComment[];
  /** All replies kept, shown or not. */
  replyCount: number;
}

/**
 * A thread whose comment ids order it (Slack message ts): its root (the comment `rootId`) and
 * its newest replies, oldest first. An edit keeps a reply in its place.
 */
export async function loadThread(q: Queryable, key: CommentKey, rootId: string): Promise<ThreadComments> {
  const rows = await q<{ comment_id: string; author: string; body: string; total: number }[]>`
    select comment_id, author, body, total::int from (
      select comment_id, author, body, count(*) over () - 1 as total,
             row_number() over (order by length(comment_id) desc, comment_id desc) as newest
        from doco.connector_item_comments
       where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId}) c
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
