// Webhook signatures: HMAC-SHA256 over the raw request bytes, compared in constant time after
// decoding the hex and checking its length (CONNECTORS.md, "HMAC rule"). Never parse first.
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
