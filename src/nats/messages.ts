// The NATS messages the docs-pack subscriber follows (docs/docs-pack.md), decoded and checked with
// valibot. Decoding never throws: a message that is not UTF-8 JSON of the right shape comes back
// as a problem sentence to log, naming the field but never quoting the payload.
import * as v from 'valibot';
import { PackBaseUrlSchema, PackCodeSchema } from '../ingest/packs/format.js';

export const DOCS_PACK_CAPABILITY = 'docs_pack';
/** Registrations are small; anything bigger is not one of ours. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

export type NatsMessageKind = 'register' | 'unregister' | 'gatewayOnline';

export type NatsEvent =
  | { kind: 'register'; code: string; baseUrl: string }
  /** A service registered without the docs_pack capability: not for us, not a fault. */
  | { kind: 'not_a_docs_pack' }
  | { kind: 'unregister'; code: string }
  | { kind: 'gateway_online' };

export type Decoded = { ok: true; event: NatsEvent } | { ok: false; problem: string };

// Members other than these are ignored: a registration also carries what other consumers read.
const CapabilitiesSchema = v.object({
  capabilities: v.pipe(v.array(v.pipe(v.string(), v.maxLength(200))), v.maxLength(100, 'must list at most 100 capabilities')),
});
const RegisterSchema = v.object({ code: PackCodeSchema, base_url: PackBaseUrlSchema });
const UnregisterSchema = v.object({ code: PackCodeSchema });
// valibot's object schemas take arrays too: every message must be a JSON object first.
const JsonObjectSchema = v.custom<Record<string, unknown>>(
  (x) => typeof x === 'object' && x !== null && !Array.isArray(x),
  'must be a JSON object',
);

const decoder = new TextDecoder('utf-8', { fatal: true });

function problemOf(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): string {
  const issue = issues[0];
  const where = v.getDotPath(issue);
  return `${where ?? 'the message'} ${issue.message}`;
}

function check<T extends v.GenericSchema>(
  schema: T,
  value: unknown,
): { ok: true; value: v.InferOutput<T> } | { ok: false; problem: string } {
  const parsed = v.safeParse(schema, value);
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, problem: problemOf(parsed.issues) };
}

/** The JSON of a message: undefined for an empty body (allowed only where `emptyOk`). */
function parseJson(data: Uint8Array, emptyOk: boolean): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (data.byteLength > MAX_MESSAGE_BYTES)
    return { ok: false, problem: `the message has ${data.byteLength} bytes; at most ${MAX_MESSAGE_BYTES} are read` };
  let text: string;
  try {
    text = decoder.decode(data);
  } catch {
    return { ok: false, problem: 'the message is not UTF-8 text' };
  }
  if (!text.trim())
    return emptyOk ? { ok: true, value: undefined } : { ok: false, problem: 'the message is empty; a JSON object was expected' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, problem: `the message is not JSON (${(err as Error).message})` };
  }
}

export function decodeNatsMessage(kind: NatsMessageKind, data: Uint8Array): Decoded {
  const json = parseJson(data, kind === 'gatewayOnline');
  if (!json.ok) return json;
  if (kind === 'gatewayOnline' && json.value === undefined) return { ok: true, event: { kind: 'gateway_online' } };
  const object = check(JsonObjectSchema, json.value);
  if (!object.ok) return { ok: false, problem: kind === 'gatewayOnline' ? 'the message must be empty or a JSON object' : object.problem };
  if (kind === 'gatewayOnline') return { ok: true, event: { kind: 'gateway_online' } };
  if (kind === 'unregister') {
    const body = check(UnregisterSchema, json.value);
    return body.ok ? { ok: true, event: { kind: 'unregister', code: body.value.code } } : body;
  }
  const caps = check(CapabilitiesSchema, json.value);
  if (!caps.ok) return caps;
  if (!caps.value.capabilities.includes(DOCS_PACK_CAPABILITY)) return { ok: true, event: { kind: 'not_a_docs_pack' } };
  const body = check(RegisterSchema, json.value);
  return body.ok ? { ok: true, event: { kind: 'register', code: body.value.code, baseUrl: body.value.base_url } } : body;
}
