// Talking to a running `doco serve` from the CLI, so the embedded index keeps a single owner:
// find the server ($DOCO_URL, or $DOCO_HOME/server.json with a live pid) and a token
// ($DOCO_TOKEN, or a read token minted once for this CLI user and kept in $DOCO_HOME).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createToken } from '../auth/tokens.js';
import { AppError, type ErrorBody } from '../errors.js';
import { serverFile } from '../config/server-file.js';
import { cliWriteContext, defaultPrincipalName, withDatabase, type CliEnv } from './context.js';

export async function findServer(env: CliEnv): Promise<string | undefined> {
  if (env.config.serverUrl) return env.config.serverUrl.replace(/\/+$/, '');
  const file = serverFile(env.config.home);
  if (!existsSync(file)) return undefined;
  try {
    const { url, pid } = JSON.parse(await readFile(file, 'utf8')) as { url: string; pid: number };
    process.kill(pid, 0);
    return url;
  } catch {
    return undefined;
  }
}

export async function cliToken(env: CliEnv, workspace: string): Promise<string> {
  if (process.env.DOCO_TOKEN) return process.env.DOCO_TOKEN;
  const file = path.join(env.config.home, `cli-token-${workspace}.json`);
  if (existsSync(file)) return (JSON.parse(await readFile(file, 'utf8')) as { token: string }).token;
  const token = await withDatabase(env, async (h) => {
    const ctx = await cliWriteContext(h, workspace, defaultPrincipalName());
    return createToken(h.db, { workspaceId: ctx.workspaceId, principalId: ctx.principalId, scope: 'read', label: 'doco CLI' });
  });
  await writeFile(file, JSON.stringify({ token }), { mode: 0o600 });
  return token;
}

/** Calls the server; an error body becomes the same AppError the server raised. */
export async function callServer<T>(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
  accept = 'application/json',
): Promise<T> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const err = (await res.json().catch(() => undefined)) as ErrorBody | undefined;
    throw new AppError(err?.error.code ?? 'unavailable', err?.error.message ?? `the server answered ${res.status}`, err?.error.details);
  }
  return (accept.startsWith('text/') ? await res.text() : await res.json()) as T;
}
