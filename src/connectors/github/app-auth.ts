// GitHub App auth: an RS256 app JWT (iat = now − 60 s, exp = now + 9 min, iss = app id) exchanged
// at POST /app/installations/{id}/access_tokens for an installation token, cached per
// installation and refreshed five minutes before it expires (it lasts an hour).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { rs256Jwt } from '../jwt.js';

/** The app JWT; `nowMs` is epoch milliseconds. */
export function appJwt(appId: string, key: KeyObject, nowMs: number): string {
  const now = Math.floor(nowMs / 1000);
  return rs256Jwt({ iat: now - 60, exp: now + 9 * 60, iss: appId }, key);
}

/** Reads the PEM once; a key that does not parse is a configuration error, said without the key. */
export function parseAppKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new Error('the GitHub App private key is not a PEM private key (GITHUB_APP_PRIVATE_KEY_FILE or GITHUB_APP_PRIVATE_KEY)');
  }
}

/** Refresh this long before expiry, so a token never lapses mid-sweep. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

export interface InstallationToken {
  token: string;
  expiresAt: number;
}

/**
 * Caches installation tokens; `exchange` makes the HTTP call. Concurrent asks for one
 * installation share a single exchange.
 */
export class InstallationTokens {
  private cache = new Map<string, InstallationToken>();
  private pending = new Map<string, Promise<InstallationToken>>();

  constructor(
    private readonly exchange: (installationId: string) => Promise<InstallationToken>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(installationId: string): Promise<string> {
    const cached = this.cache.get(installationId);
    if (cached && cached.expiresAt - REFRESH_BEFORE_MS > this.now()) return cached.token;
    let running = this.pending.get(installationId);
    if (!running) {
      running = this.exchange(installationId).finally(() => this.pending.delete(installationId));
      this.pending.set(installationId, running);
    }
    const fresh = await running;
    this.cache.set(installationId, fresh);
    return fresh.token;
  }

  /** Drops a token the API refused (401), so the next call exchanges again. */
  forget(installationId: string): void {
    this.cache.delete(installationId);
  }
}
