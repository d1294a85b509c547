// The Notion webhook's two halves (docs/connectors.md, Notion), for the HTTP edge to call. The handshake:
// creating a subscription makes Notion POST {"verification_token"} once; it is kept in the
// connector's state, taken only while none is kept, for the operator to paste back into Notion.
// After that every event is signed with that token, so the signature also says which connector
// an event is for.
import type { Sql } from '../../db/connect.js';
import { AppError } from '../../errors.js';
import { notionSignatureValid } from '../signature.js';
import { listConnectors, type ConnectorRow } from '../store.js';

export const VERIFICATION_TOKEN_KEY = 'webhook_verification_token';
const TOKEN = /^[\x21-\x7e]{8,500}$/;

/** The handshake's token when `raw` is one ({"verification_token": "…"} and nothing else), else undefined. */
export function handshakeToken(raw: Uint8Array): string | undefined {
  try {
    const body = JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const keys = Object.keys(body);
    const token = (body as { verification_token?: unknown }).verification_token;
    return keys.length === 1 && typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

const notionConnectors = async (sql: Sql, only: string | undefined) =>
  (await listConnectors(sql, undefined, 'notion')).filter((c) => c.status === 'active' && (!only || c.id === only));

/**
 * Keeps the handshake's token for the one Notion connector waiting for it (or the one named by
 * `only`); refused when none waits (each keeps the token it was given: a forged handshake cannot
 * replace it) or when several do and none is named.
 */
export async function acceptVerificationToken(sql: Sql, token: string, only: string | undefined): Promise<ConnectorRow> {
  if (!TOKEN.test(token)) throw new AppError('validation_failed', 'verification_token must be 8 to 500 printable characters');
  const candidates = await notionConnectors(sql, only);
  if (!candidates.length)
    throw new AppError(
      'not_found',
      only ? `no active Notion connector ${only}` : 'no Notion connector is configured: run doco connector add notion first',
    );
  const held = new Set(
    (
      await sql<
        { connector_id: string }[]
      >`select connector_id from doco.connector_state where key = ${VERIFICATION_TOKEN_KEY} and connector_id = any(${candidates.map((c) => c.id)})`
    ).map((r) => r.connector_id),
  );
  const waiting = candidates.filter((c) => !held.has(c.id));
  if (!waiting.length)
    throw new AppError(
      'conflict',
      'the Notion connector already holds a verification token: remove the connector and add it again to subscribe anew',
    );
  if (waiting.length > 1)
    throw new AppError(
      'conflict',
      `${waiting.length} Notion connectors wait for a verification token: point the subscription at /webhooks/notion?connector=ID`,
      { connectors: waiting.map((c) => c.id) },
    );
  const chosen = waiting[0]!;
  const stored = await sql`
    insert into doco.connector_state (connector_id, key, value)
    values (${chosen.id}, ${VERIFICATION_TOKEN_KEY}, ${sql.json({ token, received_at: new Date().toISOString() })})
    on conflict (connector_id, key) do nothing returning connector_id`;
  if (!stored.length) throw new AppError('conflict', 'the Notion connector already holds a verification token');
  return chosen;
}

/** The connector whose verification token signs `raw` as `signature` says, or undefined (a bad signature). */
export async function connectorForSignature(
  sql: Sql,
  raw: Uint8Array,
  signature: string,
  only: string | undefined,
): Promise<ConnectorRow | undefined> {
  const candidates = await notionConnectors(sql, only);
  if (!candidates.length) return undefined;
  const tokens = await sql<{ connector_id: string; token: string }[]>`
    select connector_id, value->>'token' as token from doco.connector_state
     where key = ${VERIFICATION_TOKEN_KEY} and connector_id = any(${candidates.map((c) => c.id)})`;
  const match = tokens.find((t) => t.token && notionSignatureValid(t.token, raw, signature));
  return match ? candidates.find((c) => c.id === match.connector_id) : undefined;
}
