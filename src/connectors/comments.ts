// Comments and reviews join their item's record text (issue 10), bounded: the newest
// COMMENTS_SHOWN, each cut to COMMENT_CHARS. They are kept beside the item
// (doco.connector_item_comments) so every rewrite of the record, from a webhook or a sweep,
// shows them. A comment holding a credential is not kept (reported instead), so one leaky
// comment never freezes its PR's record.
import type { Sql } from '../db/connect.js';
import type { SecretKind } from '../secrets/detector.js';
import { findSecretsInFields } from '../secrets/fields.js';

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

/** Keeps (or replaces) a comment; returns the credential kinds that kept it out instead. */
export async function keepComment(sql: Sql, key: CommentKey, commentId: string, comment: ItemComment): Promise<SecretKind[]> {
  const body = comment.body.trim().slice(0, COMMENT_CHARS);
  const found = findSecretsInFields({ author: comment.author, body });
  if (found.length) {
    await dropComment(sql, key, commentId); // an edit that added a credential takes the old text out too
    return [...new Set(found.map((f) => f.kind))];
  }
  if (!body) return dropComment(sql, key, commentId).then(() => []);
  await sql`
    insert into doco.connector_item_comments (workspace_id, kind, external_id, comment_id, author, body)
    values (${key.workspaceId}, ${key.kind}, ${key.externalId}, ${commentId}, ${comment.author}, ${body})
    on conflict (workspace_id, kind, external_id, comment_id) do update set author = excluded.author, body = excluded.body, updated_at = now()`;
  return [];
}

export async function dropComment(sql: Sql, key: CommentKey, commentId: string): Promise<void> {
  await sql`delete from doco.connector_item_comments where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId} and comment_id = ${commentId}`;
}

/** The newest comments, oldest first (as they read in a thread). */
export async function loadComments(sql: Sql, key: CommentKey): Promise<ItemComment[]> {
  const rows = await sql<ItemComment[]>`
    select author, body from (
      select author, body, updated_at, comment_id from doco.connector_item_comments
       where workspace_id = ${key.workspaceId} and kind = ${key.kind} and external_id = ${key.externalId}
       order by updated_at desc, comment_id desc limit ${COMMENTS_SHOWN}) newest
     order by updated_at, comment_id`;
  return rows.map((r) => ({ author: r.author, body: r.body }));
}

/** The prose section the comments make, or '' when there are none. */
export const commentsSection = (comments: ItemComment[]) =>
  comments.length ? `Comments:\n${comments.map((c) => `- ${c.author ? `@${c.author}` : 'someone'}: ${c.body.replace(/\s*\n\s*/g, ' ')}`).join('\n')}` : '';
