// Possibly stale records: a record whose touches name a path that no longer exists in the
// caller's checkout. Checked only when the checkout (the hook's cwd) exists on this machine.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.js';

export function checkoutExists(cwd: string): boolean {
  try {
    return path.isAbsolute(cwd) && statSync(cwd).isDirectory();
  } catch {
    return false;
  }
}

/** The ids, among those given, of records naming a file missing under cwd (empty when cwd is not here). */
export async function staleIds(sql: Sql, workspaceId: string, cwd: string, ids: string[]): Promise<Set<string>> {
  const stale = new Set<string>();
  if (ids.length === 0 || !checkoutExists(cwd)) return stale;
  const rows = await sql<{ node_id: string; value: string }[]>`
    select node_id, value from doco.touches where workspace_id = ${workspaceId} and kind = 'path' and node_id = any(${ids})`;
  for (const r of rows) {
    if (stale.has(r.node_id)) continue;
    const full = path.isAbsolute(r.value) ? r.value : path.resolve(cwd, r.value);
    if (!existsSync(full)) stale.add(r.node_id);
  }
  return stale;
}

export const STALE_SUFFIX = ' (possibly stale: names a file that no longer exists)';
