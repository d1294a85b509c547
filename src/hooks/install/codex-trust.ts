// Whether Codex trusts our hooks, as Codex itself says: `codex app-server` speaks JSON-RPC over
// stdio (one JSON object a line), and its `hooks/list` reports each hook's `trustStatus`. We only
// read it: trust is the user's to give ("Trust all and continue", or /hooks), never ours to write.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { isOurHandler } from './common.js';

export type CodexTrust = { known: false; reason: string } | { known: true; events: Record<string, string>; errors: string[] };

interface ListedHook {
  key?: string;
  eventName?: string;
  trustStatus?: string;
  command?: string;
}

const TIMEOUT_MS = 20_000;

export function onPath(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs the app-server just long enough to ask hooks/list for the checkout. */
async function listHooks(codexBin: string, root: string): Promise<{ hooks: ListedHook[]; errors: string[] }> {
  const child = spawn(codexBin, ['app-server'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (m: { result?: unknown; error?: { message?: string } }) => void>();
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line) continue;
      try {
        const m = JSON.parse(line) as { id?: number; result?: unknown; error?: { message?: string } };
        if (typeof m.id === 'number') waiting.get(m.id)?.(m);
      } catch {
        // a line that is not ours to read (logs)
      }
    }
  });
  const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const request = (id: number, method: string, params: object) =>
    new Promise<unknown>((resolve, reject) => {
      waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message ?? 'failed'}`)) : resolve(m.result)));
      send({ id, method, params });
    });
  const ended = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`codex app-server exited (${code}) before answering`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`codex app-server did not answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });
  try {
    const talk = (async () => {
      await request(0, 'initialize', { clientInfo: { name: 'doco', version: '1' } });
      send({ method: 'initialized' });
      return (await request(1, 'hooks/list', { cwds: [root] })) as { data?: { hooks?: ListedHook[]; errors?: { message?: string }[] }[] };
    })();
    const result = await Promise.race([talk, ended, timeout]);
    const entries = result?.data ?? [];
    return {
      hooks: entries.flatMap((e) => e.hooks ?? []),
      errors: entries.flatMap((e) => (e.errors ?? []).map((x) => x.message ?? 'error')),
    };
  } finally {
    clearTimeout(timer);
    child.stdin.end();
    child.kill();
  }
}

/** Per event of ours, Codex's trustStatus (e.g. trusted, untrusted, modified), or why it is unknown. */
export async function codexTrust(root: string, events: string[], pathVar?: string): Promise<CodexTrust> {
  const bin = onPath('codex', pathVar);
  if (!bin) return { known: false, reason: 'unknown (codex not on PATH)' };
  try {
    const { hooks, errors } = await listHooks(bin, root);
    const file = path.join(root, '.codex', 'hooks.json');
    const ours = hooks.filter((h) =>
      typeof h.command === 'string' ? isOurHandler({ command: h.command }) : (h.key ?? '').startsWith(`${file}:`),
    );
    // Event names compared loosely: SessionStart, sessionStart and session_start are one event.
    const norm = (s: string | undefined) => (s ?? '').toLowerCase().replace(/[^a-z]/g, '');
    const out: Record<string, string> = {};
    for (const e of events) out[e] = ours.find((h) => norm(h.eventName) === norm(e))?.trustStatus ?? 'not listed by codex';
    return { known: true, events: out, errors };
  } catch (err) {
    return { known: false, reason: `unknown (${(err as Error).message})` };
  }
}
