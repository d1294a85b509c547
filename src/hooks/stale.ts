// Possibly stale records: a record whose touches name a file the caller's checkout deleted. What
// the checkout deleted is found where the checkout is, by `doco hook` (deleted-files.ts: git
// knows it, removed in a commit or since the last one), and sent with the event as
// `doco_deleted`. The server only compares those paths with the records' touches: it never runs
// a program in, nor reads, a folder a request names (docs/agents.md). No list, no mark.
import path from 'node:path';
import type { Sql } from '../db/connect.js';

/** A path as the checkout names it, relative to `cwd` in `/` form: `./a/../b.ts` and `/repo/b.ts` (cwd /repo) are `b.ts`. */
export function checkoutPath(cwd: string, p: string): string {
  const posix = p.replace(/\\/g, '/');
  const rel = path.posix.isAbsolute(posix) ? path.posix.relative(cwd.replace(/\\/g, '/'), posix) : posix;
  return path.posix.normalize(rel).replace(/^\.\//, '');
}

/** The ids, among those given, of records naming a file the checkout said it deleted. */
export async function staleIds(
  sql: Sql,
  workspaceId: string,
  cwd: string,
  deleted: readonly string[],
  ids: string[],
): Promise<Set<string>> {
  const stale = new Set<string>();
  if (ids.length === 0 || deleted.length === 0) return stale;
  const gone = new Set(deleted.map((p) => checkoutPath(cwd, p)));
  const rows = await sql<{ node_id: string; value: string }[]>`
    select node_id, value from doco.touches where workspace_id = ${workspaceId} and kind = 'path' and node_id = any(${ids})`;
  for (const r of rows) if (gone.has(checkoutPath(cwd, r.value))) stale.add(r.node_id);
  return stale;
}
