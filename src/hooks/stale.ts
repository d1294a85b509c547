// Possibly stale records: a record whose touches name a file the caller's checkout no longer has
// — one git knows was deleted (in a commit, or since the last one). A file that never existed
// (a rule about a file not written yet) is not stale. Checked only when the checkout (the hook's
// cwd) exists on this machine and is a git repository.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Sql } from '../db/connect.js';

const run = promisify(execFile);
/** More missing paths than this are not looked up (a record naming many files is stale by one). */
const MAX_LOOKUPS = 200;

export function checkoutExists(cwd: string): boolean {
  try {
    return path.isAbsolute(cwd) && statSync(cwd).isDirectory();
  } catch {
    return false;
  }
}

const git = async (cwd: string, args: string[]) => (await run('git', args, { cwd, timeout: 3000, maxBuffer: 4 * 1024 * 1024 })).stdout;

/** Of the given absolute paths (missing from the working tree), those git knows were deleted. */
export async function deletedPaths(cwd: string, missing: string[]): Promise<Set<string>> {
  if (missing.length === 0) return new Set();
  try {
    const top = (await git(cwd, ['rev-parse', '--show-toplevel'])).trim();
    const specs = missing.slice(0, MAX_LOOKUPS).map((p) => path.relative(top, p)).filter((p) => p && !p.startsWith('..'));
    if (specs.length === 0) return new Set();
    const [inHead, deleted] = await Promise.all([
      git(top, ['ls-tree', '-r', '--name-only', 'HEAD', '--', ...specs]).catch(() => ''),
      git(top, ['log', '--diff-filter=D', '--name-only', '--format=', '--', ...specs]).catch(() => ''),
    ]);
    return new Set(`${inHead}\n${deleted}`.split('\n').filter(Boolean).map((p) => path.resolve(top, p)));
  } catch {
    return new Set(); // not a repository, or git is missing: nothing is known to be deleted
  }
}

/** The ids, among those given, of records naming a file git says this checkout deleted. */
export async function staleIds(sql: Sql, workspaceId: string, cwd: string, ids: string[]): Promise<Set<string>> {
  const stale = new Set<string>();
  if (ids.length === 0 || !checkoutExists(cwd)) return stale;
  const rows = await sql<{ node_id: string; value: string }[]>`
    select node_id, value from doco.touches where workspace_id = ${workspaceId} and kind = 'path' and node_id = any(${ids})`;
  const missing = rows
    .map((r) => ({ id: r.node_id, full: path.isAbsolute(r.value) ? r.value : path.resolve(cwd, r.value) }))
    .filter((r) => !existsSync(r.full));
  const deleted = await deletedPaths(cwd, [...new Set(missing.map((m) => m.full))]);
  for (const m of missing) if (deleted.has(m.full)) stale.add(m.id);
  return stale;
}

