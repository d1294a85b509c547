// The server never runs a program in, nor reads, a folder a request names (docs/agents.md): a
// hook event's `cwd` is only a name. The probe that found it: with a read token, a hook event
// whose `cwd` named a git repository on the server's machine made the server run git there
// (stale-file detection). Now `doco hook` finds what the checkout deleted, where the checkout is,
// and sends it as `doco_deleted`; the server compares those paths with the records' touches.
// Shown by behaviour (a real repository with a deleted file is named, nothing is marked unless
// the client says so) and, as a second line of defence, by the server's import graph.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutPath } from '../../src/hooks/stale.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STALE = 'possibly stale: names a file this checkout deleted';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let repo = '';
let goneId = '';
const providers = localProviders();

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  api = makeApp(t, undefined, providers);
  // A real checkout on this machine: src/billing/refund-mailer.ts was committed, then deleted.
  repo = await mkdtemp(path.join(tmpdir(), 'doco-server-checkout-'));
  await mkdir(path.join(repo, 'src/billing'), { recursive: true });
  await writeFile(path.join(repo, 'src/billing/refund-mailer.ts'), 'export {};\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
  git('rm', '-q', 'src/billing/refund-mailer.ts');
  git('commit', '-qm', 'mailer gone');
  await api.call('POST', '/api/v1/collections', ws.writeToken, { slug: 'acme-decisions', template: 'product-decisions', goal: 'Money' });
  const res = await api.call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'acme-decisions',
    node_type: 'decision',
    prose: 'Refund emails are sent from src/billing/refund-mailer.ts after the card is credited.',
    body: { question: 'Who tells the customer about a refund?' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  goneId = res.body.node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
  await t.drop();
});

const prompt = async (session: string, extra: Record<string, unknown> = {}) => {
  const res = await api.call('POST', '/api/v1/hooks/claude-code/prompt', ws.readToken, {
    session_id: session,
    transcript_path: null,
    cwd: repo,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'Who sends refund emails?',
    ...extra,
  });
  return res;
};
const lineAfter = (text: string, id: string) => {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`  ${id}  `));
  return at < 0 ? '' : `${lines[at]}\n${lines[at + 1]}`;
};

describe('a hook event naming a real repository on the server', () => {
  it('is answered without looking at it: no stale mark unless the client sent the deleted files', async () => {
    const res = await prompt('srv-1');
    expect(res.status).toBe(200);
    const text = res.body.hookSpecificOutput.additionalContext as string;
    expect(lineAfter(text, goneId)).toContain(goneId);
    expect(text).not.toContain(STALE);
  });

  it('marks the record the client says names a deleted file (as doco hook sends it)', async () => {
    const res = await prompt('srv-2', { doco_deleted: ['src/billing/refund-mailer.ts'] });
    expect(res.status).toBe(200);
    expect(lineAfter(res.body.hookSpecificOutput.additionalContext, goneId)).toContain(STALE);
  });

  it('takes the client at its word whatever the folder: a name with nothing behind it', async () => {
    const res = await prompt('srv-3', { cwd: '/nowhere/at/all', doco_deleted: ['./src/billing/../billing/refund-mailer.ts'] });
    expect(res.status).toBe(200);
    expect(lineAfter(res.body.hookSpecificOutput.additionalContext, goneId)).toContain(STALE);
  });

  it('refuses a doco_deleted that is not a bounded list of bounded strings', async () => {
    for (const bad of ['src/a.ts', [42], [''], ['x'.repeat(1025)], Array.from({ length: 1001 }, (_, i) => `f${i}.ts`)]) {
      const res = await prompt('srv-4', { doco_deleted: bad });
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(res.body.error)).toContain('doco_deleted');
    }
  });
});

describe('paths as the checkout names them', () => {
  it('compares relative, dotted and absolute (under cwd) paths alike, by name only', () => {
    expect(checkoutPath('/repo', 'src/a.ts')).toBe('src/a.ts');
    expect(checkoutPath('/repo', './src/x/../a.ts')).toBe('src/a.ts');
    expect(checkoutPath('/repo', '/repo/src/a.ts')).toBe('src/a.ts');
    expect(checkoutPath('/repo/sub', '/repo/src/a.ts')).toBe('../src/a.ts');
  });
});

/** The modules a file imports for their values (type-only imports are erased), dynamic imports included. */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = c?.isTypeOnly || (c && !c.name && named && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (!typeOnly) found.push(n.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier) && !n.isTypeOnly) {
      found.push(n.moduleSpecifier.text);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(n.arguments[0]!)) {
      found.push((n.arguments[0] as ts.StringLiteral).text);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

/** Every file of src/ the module loads, and the packages each of them imports. */
function closure(entry: string): { files: string[]; packages: Map<string, string[]> } {
  const seen = new Set<string>();
  const packages = new Map<string, string[]>();
  const stack = [path.join(ROOT, entry)];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(file)) {
      if (!spec.startsWith('.')) {
        packages.set(spec, [...(packages.get(spec) ?? []), path.relative(ROOT, file)]);
        continue;
      }
      const base = path.resolve(path.dirname(file), spec).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`].find((f) => existsSync(f));
      if (target) stack.push(target);
    }
  }
  return { files: [...seen].map((f) => path.relative(ROOT, f)), packages };
}

describe('the code the server runs for a hook event', () => {
  it('loads no module that starts programs (the route, the answer, the brief, standing orders, staleness)', () => {
    const { files, packages } = closure('src/http/rest/hooks.ts');
    expect(files).toEqual(expect.arrayContaining(['src/hooks/respond.ts', 'src/hooks/stale.ts', 'src/brief/compose.ts']));
    // The client's half is not on the server's path.
    expect(files).not.toContain('src/hooks/deleted-files.ts');
    expect(packages.get('node:child_process') ?? [], 'imports node:child_process').toEqual([]);
    expect(packages.get('child_process') ?? [], 'imports child_process').toEqual([]);
  });
});
