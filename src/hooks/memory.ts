// Per-session memory (doco.hook_sessions, doco.hook_sent): which items a session was already
// given, at which version, so a hook sends only what is new or changed.
import { createHash } from 'node:crypto';
import type { Sql } from '../db/connect.js';
import type { Agent } from './agents.js';

/** A session is its principal's own: another token naming the same session id is another session. */
export interface SessionKey {
  workspaceId: string;
  principalId: string;
  sessionId: string;
}

/**
 * Records the session's hook call. Returns when the principal's previous session in the checkout
 * (another session id, same checkout: the repository and branch, or the cwd when the hook did
 * not say) was last seen, or null when this is its first session there.
 */
export async function touchSession(
  sql: Sql,
  key: SessionKey,
  agent: Agent,
  where: { cwd: string; checkout: string },
): Promise<Date | null> {
  // One statement: the previous session is read from the snapshot before this one's upsert.
  const [row] = await sql<{ last_seen_at: Date | null }[]>`
    with previous as (
      select last_seen_at from doco.hook_sessions
       where workspace_id = ${key.workspaceId} and principal_id = ${key.principalId}
         and coalesce(checkout, cwd) = ${where.checkout} and session_id <> ${key.sessionId}
       order by last_seen_at desc limit 1
    ), touched as (
      insert into doco.hook_sessions (workspace_id, principal_id, session_id, agent, cwd, checkout)
      values (${key.workspaceId}, ${key.principalId}, ${key.sessionId}, ${agent}, ${where.cwd}, ${where.checkout})
      on conflict (workspace_id, principal_id, session_id) do update set last_seen_at = now(), cwd = excluded.cwd, checkout = excluded.checkout
    )
    -- A receipt: committed without waiting for the disk (sql/receipts.sql).
    select (select last_seen_at from previous) as last_seen_at from doco.commit_receipt_unflushed()`;
  return row?.last_seen_at ?? null;
}

/** Forgets what a session was sent: after a session start (startup, clear, compact) its context is new. */
export async function forgetSent(sql: Sql, key: SessionKey): Promise<void> {
  await sql`
    delete from doco.hook_sent where workspace_id = ${key.workspaceId} and principal_id = ${key.principalId} and session_id = ${key.sessionId}`;
}

export async function sentVersions(sql: Sql, key: SessionKey): Promise<Map<string, number>> {
  const rows = await sql<{ node_id: string; version: number }[]>`
    select node_id, version from doco.hook_sent
     where workspace_id = ${key.workspaceId} and principal_id = ${key.principalId} and session_id = ${key.sessionId}`;
  return new Map(rows.map((r) => [r.node_id, r.version]));
}

export async function markSent(sql: Sql, key: SessionKey, items: { id: string; version: number }[]): Promise<void> {
  if (items.length === 0) return;
  // In key order: two hooks of one session (parallel tool calls, subagents) upserting the same
  // items in different orders would each lock a row the other waits for, and Postgres would
  // abort one (40P01) — a hook answering 409 instead of its brief. One order cannot cycle.
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // A receipt: committed without waiting for the disk (sql/receipts.sql).
  await sql`
    insert into doco.hook_sent (workspace_id, principal_id, session_id, node_id, version)
    select ${key.workspaceId}, ${key.principalId}, ${key.sessionId}, s.node_id, s.version
      from doco.commit_receipt_unflushed(),
           unnest(${sorted.map((i) => i.id)}::text[], ${sorted.map((i) => i.version)}::integer[]) with ordinality as s(node_id, version, ord)
     order by s.ord
    on conflict (workspace_id, principal_id, session_id, node_id) do update set version = excluded.version, sent_at = now()`;
}

/** A 31-bit stand-in version for an item that is not a record (a collection's goal or policy). */
export function textVersion(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) >>> 1;
}

/**
 * The version each item was sent at: the record's, as the brief read it, else (a collection's
 * goal or policy) a hash of the item's text.
 */
export function itemVersions(items: { id: string; text: string }[], recordVersions: ReadonlyMap<string, number>): Map<string, number> {
  return new Map(items.map((i) => [i.id, recordVersions.get(i.id) ?? textVersion(i.text)]));
}

/** Splits items into those to send (new to the session, or changed since) and the unchanged count. */
export function splitFresh<T extends { id: string }>(
  items: T[],
  current: Map<string, number>,
  sent: Map<string, number>,
): { fresh: T[]; unchanged: number } {
  const fresh: T[] = [];
  let unchanged = 0;
  for (const item of items) {
    if (sent.has(item.id) && sent.get(item.id) === current.get(item.id)) unchanged++;
    else fresh.push(item);
  }
  return { fresh, unchanged };
}
