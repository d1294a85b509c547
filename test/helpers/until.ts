// Waiting for work a worker does in the background, and calling the in-process app, for the
// connector end-to-end tests.
import type { buildApp } from '../../src/http/app.js';

/** Polls (no timing asserted) until check gives something other than undefined, null or false. */
export async function until<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

export const jsonOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });

/** A JSON request to the app with an optional bearer token. */
export const callApi = async (app: ReturnType<typeof buildApp>, method: string, path: string, token: string | undefined, body?: unknown) =>
  jsonOf(
    await app.request(path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
