// RS256 JSON Web Tokens, as the GitHub App and a Google service account sign their assertions.
import { createSign, type KeyObject } from 'node:crypto';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** `header.claims.signature`, signed with `key`; `header` adds fields (a key id) to {alg, typ}. */
export function rs256Jwt(claims: Record<string, unknown>, key: KeyObject, header: Record<string, unknown> = {}): string {
  const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', ...header }));
  const body = b64url(JSON.stringify(claims));
  const signature = createSign('RSA-SHA256').update(`${head}.${body}`).sign(key);
  return `${head}.${body}.${b64url(signature)}`;
}
