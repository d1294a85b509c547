// Google service-account auth (docs/connectors.md, Drive): an RS256 JWT assertion (iss = the account's
// client_email, scope = drive.readonly, aud = the token URL, exp = iat + 1 h) exchanged at the
// token URL for an access token, cached until shortly before it expires.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { rs256Jwt } from '../jwt.js';

export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive.readonly';

export interface ServiceAccount {
  clientEmail: string;
  key: KeyObject;
  keyId: string | undefined;
}

/** The key file's JSON → the account; a file that is not one is said without quoting it. */
export function parseServiceAccount(json: string, where: string): ServiceAccount {
  let parsed: { client_email?: unknown; private_key?: unknown; private_key_id?: unknown };
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    throw new Error(`${where} is not JSON: download the service account's key as JSON`);
  }
  if (typeof parsed.client_email !== 'string' || typeof parsed.private_key !== 'string')
    throw new Error(`${where} has no client_email and private_key: it is not a service account key`);
  let key: KeyObject;
  try {
    key = createPrivateKey(parsed.private_key);
  } catch {
    throw new Error(`${where}: private_key is not a PEM private key`);
  }
  return { clientEmail: parsed.client_email, key, keyId: typeof parsed.private_key_id === 'string' ? parsed.private_key_id : undefined };
}

/** The signed assertion; `nowMs` is epoch milliseconds. */
export function assertion(account: ServiceAccount, tokenUrl: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  return rs256Jwt(
    { iss: account.clientEmail, scope: DRIVE_SCOPE, aud: tokenUrl, iat, exp: iat + 3600 },
    account.key,
    account.keyId ? { kid: account.keyId } : {},
  );
}
