// Trusting the checkout and Doco's hooks in Codex the way its own UI does, through `codex
// app-server` (JSON-RPC over stdio): `config/value/write` marks the project trusted (what
// "Trust this folder" saves), `hooks/list` reports each hook's key, `currentHash` and
// `trustStatus`, and `config/value/write` stores that hash under `hooks.state.<key>.trusted_hash`
// (what "Trust all and continue" in /hooks saves). The hash is the one Codex reports: the suite
// never computes it, so a changed command shows up as untrusted, as it would for a user.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface CodexHook {
  key: string;
  eventName: string;
  command?: string;
  source: string;
  currentHash: string;
  trustStatus: string;
}

type Json = Record<string, any>;

class AppServer {
  private child;
  private nextId = 1;
  private waiting = new Map<number, (msg: Json) => void>();
  stderr = '';

  constructor(codex: string, env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn(codex, ['app-server'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d) => (this.stderr += d));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      let msg: Json;
      try {
        msg = JSON.parse(line) as Json;
      } catch {
        return;
      }
      const done = typeof msg.id === 'number' ? this.waiting.get(msg.id) : undefined;
      if (done && (msg.result !== undefined || msg.error !== undefined)) done(msg);
    });
  }

  async call(method: string, params: unknown): Promise<Json> {
    const id = this.nextId++;
    const answer = new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`codex app-server: no answer to ${method} in 30 s; stderr: ${this.stderr.slice(-2000)}`)),
        30_000,
      );
      this.waiting.set(id, (msg) => {
        clearTimeout(timer);
        if (msg.error) reject(new Error(`codex app-server ${method}: ${JSON.stringify(msg.error)}`));
        else resolve(msg.result as Json);
      });
    });
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The project's hooks as Codex lists them for `cwd`. */
async function listHooks(server: AppServer, cwd: string): Promise<CodexHook[]> {
  const res = await server.call('hooks/list', { cwds: [cwd] });
  return ((res.data as Json[] | undefined) ?? []).flatMap((d) => (d.hooks as CodexHook[] | undefined) ?? []);
}

/** Trusts the project and every project hook Codex lists there; returns the hooks as listed before and after. */
export async function trustCodexHooks(
  codex: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ before: CodexHook[]; after: CodexHook[] }> {
  const server = new AppServer(codex, env, cwd);
  try {
    await server.call('initialize', { clientInfo: { name: 'doco-agent-suite', version: '1' } });
    server.notify('initialized');
    await server.call('config/value/write', { keyPath: 'projects', mergeStrategy: 'upsert', value: { [cwd]: { trust_level: 'trusted' } } });
    const before = await listHooks(server, cwd);
    const untrusted = before.filter((h) => h.source === 'project' && h.trustStatus !== 'trusted');
    if (untrusted.length > 0) {
      const state = Object.fromEntries(untrusted.map((h) => [h.key, { trusted_hash: h.currentHash }]));
      await server.call('config/value/write', { keyPath: 'hooks.state', mergeStrategy: 'upsert', value: state });
    }
    return { before, after: await listHooks(server, cwd) };
  } finally {
    await server.close();
  }
}
