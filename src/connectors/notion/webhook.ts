// The Notion webhook's two halves (docs/connectors.md, Notion), for the HTTP edge to call.
//
// The handshake: creating a subscription makes Notion POST {"verification_token"} once, unsigned,
// so anyone could send one. It is taken only while a person has armed it: adding the connector, or
// re-arming it, opens HANDSHAKE_WINDOW_MINUTES for it; the first token in that window is kept in
// the connector's state for that person to paste back into Notion, and closes it. Anything else
// is one refusal that names no connector, so a caller holding no token learns nothing and changes
// nothing. After that every event is signed with the kept token, so the signature also says
// which connector an event is for.
import type { Sql } from '../../db/connect.js';
import { AppError } from '../../errors.js';
import { notionSignatureValid } from '../signature.js';
import { listConnectors, type ConnectorRow, type Queryable } from '../store.js';
import { ARMED_AT_KEY, HANDSHAKE_WINDOW_MINUTES, VERIFICATION_TOKEN_KEY } from './handshake.js';

const TOKEN = /^[\x21-\x7e]{8,500}$/;

/** The answer to every handshake that is not taken: the same whether a connector exists, holds a token, or its hour is gone. */
export const HANDSHAKE_REFUSED =
  'no Notion webhook handshake is awaited here: a person arms one by adding the Notion connector or re-arming it (doco connector rearm ID), then has Notion send the token again';

/**
 * The most a handshake's body holds: its one key and a token of at most 500 characters, with room
 * for whitespace. Anyone may send an unsigned body; parsing a megabyte of it (nested `[[[…` takes
 * ~0.6 s) before knowing it is no handshake let a stranger hold the server's thread.
 */
export const HANDSHAKE_MAX_BYTES = 1024;

/** The handshake's token when `raw` is one ({"verification_token": "…"} and nothing else), else undefined. */
export function handshakeToken(raw: Uint8Array): string | undefined {
  if (raw.byteLength > HANDSHAKE_MAX_BYTES) return undefined;
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
 * Keeps the handshake's token for the one Notion connector a person armed within the hour (or the
 * one named by `only`), in one statement, so two handshakes at once cannot both be kept. Every
 * other case — none armed, a token already kept, the hour gone, several armed — is HANDSHAKE_REFUSED.
 */
export async function acceptVerificationToken(sql: Sql, token: string, only: string | undefined): Promise<void> {
  if (!TOKEN.test(token)) throw new AppError('validation_failed', 'verification_token must be 8 to 500 printable characters');
  const armed = await sql<{ id: string }[]>`
    select c.id from doco.connectors c
      left join doco.connector_state a on a.connector_id = c.id and a.key = ${ARMED_AT_KEY}
     where c.kind = 'notion' and c.status = 'active' and (${only ?? null}::text is null or c.id = ${only ?? null})
       and coalesce((a.value #>> '{}')::timestamptz, c.created_at) > now() - make_interval(mins => ${HANDSHAKE_WINDOW_MINUTES})
       and not exists (select 1 from doco.connector_state v where v.connector_id = c.id and v.key = ${VERIFICATION_TOKEN_KEY})`;
  if (armed.length !== 1) throw new AppError('unauthorized', HANDSHAKE_REFUSED);
  const stored = await sql`
    insert into doco.connector_state (connector_id, key, value)
    values (${armed[0]!.id}, ${VERIFICATION_TOKEN_KEY}, ${sql.json({ token, received_at: new Date().toISOString() })})
    on conflict (connector_id, key) do nothing returning connector_id`;
  if (!stored.length) throw new AppError('unauthorized', HANDSHAKE_REFUSED);
}

/**
 * A person re-arms the handshake: the kept token goes (events signed with it are refused from
 * now on) and another window opens for Notion to send its token again.
 */
export async function rearmHandshake(q: Queryable, connector: ConnectorRow): Promise<void> {
  if (connector.kind !== 'notion')
    throw new AppError('validation_failed', `a ${connector.kind} connector has no webhook handshake to re-arm`);
  await q`delete from doco.connector_state where connector_id = ${connector.id} and key = ${VERIFICATION_TOKEN_KEY}`;
  await q`
    insert into doco.connector_state (connector_id, key, value) values (${connector.id}, ${ARMED_AT_KEY}, to_jsonb(now()))
    on conflict (connector_id, key) do update set value = excluded.value, updated_at = now()`;
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
