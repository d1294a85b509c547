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

/**
 * Per commit, what git said about a path (true: in HEAD's tree or deleted in its history). These
 * are facts about an immutable commit, so remembering them is always right; it spares a hook two
 * git processes per prompt once a session's paths have been asked about. Bounded: cleared when full.
 */
const known = new Map<string, boolean>();
const MAX_KNOWN = 20_000;

/** Of the given absolute paths (missing from the working tree), those git knows were deleted. */
export async function deletedPaths(cwd: string, missing: string[]): Promise<Set<string>> {
  if (missing.length === 0) return new Set();
  try {
    // One process for the checkout's top and its commit; an unborn HEAD has deleted nothing.
    const [top, head] = (await git(cwd, ['rev-parse', '--show-toplevel', '--verify', '-q', 'HEAD'])).trim().split('\n');
    if (!top || !head) return new Set();
    const key = (p: string) => `${top}\0${head}\0${p}`;
    const rel = missing
      .slice(0, MAX_LOOKUPS)
      .map((p) => ({ full: p, spec: path.relative(top, p) }))
      .filter((p) => p.spec && !p.spec.startsWith('..'));
    const ask = rel.filter((p) => !known.has(key(p.full)));
    if (ask.length > 0) {
      const specs = ask.map((p) => p.spec);
      const [inHead, deleted] = await Promise.all([
        git(top, ['ls-tree', '-r', '--name-only', head, '--', ...specs]).catch(() => ''),
        git(top, ['log', '--diff-filter=D', '--name-only', '--format=', head, '--', ...specs]).catch(() => ''),
      ]);
      const found = new Set(
        `${inHead}\n${deleted}`
          .split('\n')
          .filter(Boolean)
          .map((p) => path.resolve(top, p)),
      );
      if (known.size + ask.length > MAX_KNOWN) known.clear();
      for (const p of ask) known.set(key(p.full), found.has(p.full));
    }
    return new Set(rel.filter((p) => known.get(key(p.full))).map((p) => p.full));
  } catch {
    return new Set(); // not a repository, an unborn HEAD, or git is missing: nothing is known to be deleted
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
