// Talking to a running `doco serve` from the CLI, so the embedded index keeps a single owner:
// find the server ($DOCO_URL, or $DOCO_HOME/server.json with a live pid) and a token
// ($DOCO_TOKEN, or a read token minted once for this CLI user and kept in $DOCO_HOME).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createToken } from '../auth/tokens.js';
import { AppError, type ErrorBody } from '../errors.js';
import { readLiveServer } from '../config/server-file.js';
import { cliReadContext, cliWriteContext, defaultPrincipalName, withDatabase, type CliEnv } from './context.js';
import { CliError, UsageError } from './output.js';

export async function findServer(env: CliEnv): Promise<string | undefined> {
  if (env.config.serverUrl) return env.config.serverUrl.replace(/\/+$/, '');
  return (await readLiveServer(env.config.home))?.url;
}

/** A workspace slug, checked before it names a file in the home (a path in it must not lead out). */
function tokenFileIn(home: string, kind: 'cli-token' | 'cli-write-token', workspace: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(workspace)) throw new UsageError(`--workspace must be a slug, not ${JSON.stringify(workspace)}`);
  return path.join(home, `${kind}-${workspace}.json`);
}

export async function cliToken(env: CliEnv, workspace: string): Promise<string> {
  if (process.env.DOCO_TOKEN) return process.env.DOCO_TOKEN;
  const file = tokenFileIn(env.config.home, 'cli-token', workspace);
  if (existsSync(file)) return (JSON.parse(await readFile(file, 'utf8')) as { token: string }).token;
  const token = await withDatabase(env, async (h) => {
    // A read's token (brief, search, align): a read never makes the workspace it names.
    const ctx = await cliReadContext(h, workspace);
    return createToken(h.db, { workspaceId: ctx.workspaceId, principalId: ctx.principalId, scope: 'read', label: 'doco CLI' });
  });
  await writeFile(file, JSON.stringify({ token }), { mode: 0o600 });
  return token;
}

/**
 * A person's write token for this CLI user (cli:<user>) in `workspace`, for `doco hooks install`
 * to have the server mint an agent's tokens with: only when `url` is the server this home
 * records (the same user on the machine where `doco serve` runs already holds its database).
 * Minted in that database once and kept in the home, owner-only; a revoked one is replaced.
 */
export async function localAdminToken(env: CliEnv, workspace: string, url: string, accepted: (token: string) => Promise<boolean>) {
  const live = await readLiveServer(env.config.home);
  if (!live || live.url.replace(/\/+$/, '') !== url) return undefined;
  const file = tokenFileIn(env.config.home, 'cli-write-token', workspace);
  if (existsSync(file)) {
    const kept = (JSON.parse(await readFile(file, 'utf8')) as { token: string }).token;
    if (await accepted(kept)) return kept;
  }
  const token = await withDatabase(env, async (h) => {
    // The hooks are pointed at a workspace that exists: a mistyped --workspace is refused, not made.
    const ctx = await cliWriteContext(h, workspace, defaultPrincipalName());
    return createToken(h.db, {
      workspaceId: ctx.workspaceId,
      principalId: ctx.principalId,
      scope: 'write',
      label: 'doco hooks install (local)',
    });
  });
  await writeFile(file, JSON.stringify({ token }), { mode: 0o600 });
  return token;
}

/** fetch failed: which server, why (the system's code), and what to do. */
export function unreachable(url: string, err: unknown): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err as Error)?.message ?? 'no answer';
  return new CliError(
    `cannot reach the Doco server at ${url} (${why}): start it with \`doco serve\`, or point DOCO_URL at the one you use`,
  );
}

/**
 * How long a command waits for the server's whole answer: a server that takes the connection and
 * never answers kept `doco brief` waiting five minutes (undici's own header timeout).
 */
export const SERVER_ANSWER_MS = 60_000;

/** Calls the server; an error body becomes the same AppError the server raised. */
export async function callServer<T>(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
  accept = 'application/json',
  timeoutMs = SERVER_ANSWER_MS,
): Promise<T> {
  const signal = AbortSignal.timeout(timeoutMs);
  const noAnswer = () => new CliError(`the Doco server at ${url} did not answer within ${timeoutMs / 1000} s`);
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  }).catch((err: unknown) => {
    throw signal.aborted ? noAnswer() : unreachable(url, err);
  });
  const read = async () => {
    const text = await res.text().catch((err: unknown) => {
      throw signal.aborted ? noAnswer() : unreachable(url, err);
    });
    if (accept.startsWith('text/')) return text;
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // Not JSON: said below, without quoting it (it is whatever answered at that address).
    }
    return undefined;
  };
  const answer = await read();
  if (!res.ok) {
    const err = answer as ErrorBody | undefined;
    throw new AppError(err?.error?.code ?? 'unavailable', err?.error?.message ?? `the server answered ${res.status}`, err?.error?.details);
  }
  if (answer === undefined)
    throw new CliError(`${url} answered ${res.status} with something other than a Doco answer: is DOCO_URL a Doco server?`);
  return answer as T;
}
