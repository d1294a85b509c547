// Webhook signatures (GitHub, Slack): HMAC-SHA256 over the raw request bytes, compared in constant time after
// decoding the hex and checking its length (docs/connectors.md, "Signatures"). Never parse first.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** True when `hex` is the HMAC-SHA256 of `raw` under `secret`. */
export function hmacSha256HexMatches(secret: string, raw: Uint8Array, hex: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  const given = Buffer.from(hex, 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** GitHub's X-Hub-Signature-256: `sha256=<hex>`; anything without the prefix is refused. */
export function githubSignatureValid(secret: string, raw: Uint8Array, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  return hmacSha256HexMatches(secret, raw, header.slice('sha256='.length));
}

/** Notion's X-Notion-Signature has GitHub's form: `sha256=<hex>` over the raw body, keyed with the verification token. */
export const notionSignatureValid = githubSignatureValid;
/** Slack's replay window: a request stamped more than five minutes from now is refused (docs/connectors.md, Slack). */
export const SLACK_MAX_SKEW_S = 300;

export type SlackVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Slack's X-Slack-Signature: `v0=` + hex HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}`
 * under the signing secret, stamped within SLACK_MAX_SKEW_S of `nowS` (either way, as the Python
 * SDK checks: a clock ahead of ours is no fresher).
 */
export function slackRequestValid(
  secret: string,
  raw: Uint8Array,
  timestamp: string | undefined,
  signature: string | undefined,
  nowS: number,
): SlackVerdict {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'X-Slack-Request-Timestamp is missing or not a unix time' };
  if (Math.abs(nowS - Number(timestamp)) > SLACK_MAX_SKEW_S)
    return { ok: false, reason: 'X-Slack-Request-Timestamp is more than five minutes from now (a replay, or a clock far off)' };
  if (!signature?.startsWith('v0=')) return { ok: false, reason: 'X-Slack-Signature is missing or not a v0 signature' };
  const signed = Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), raw]);
  if (!hmacSha256HexMatches(secret, signed, signature.slice('v0='.length)))
    return { ok: false, reason: 'X-Slack-Signature does not match this body, timestamp and the signing secret' };
  return { ok: true };
}
