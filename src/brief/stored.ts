// Reading a stored brief back (GET /briefs/:id), always within its workspace.
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import type { Brief } from './types.js';

export async function getStoredBrief(
  sql: Sql,
  workspaceId: string,
  id: string,
): Promise<{ brief: Brief; request: unknown; created_at: Date }> {
  const [row] = await sql<{ request: unknown; response: Omit<Brief, 'proposed'> & Partial<Pick<Brief, 'proposed'>>; created_at: Date }[]>`
    select request, response, created_at from doco.briefs where id = ${id} and workspace_id = ${workspaceId}`;
  if (!row) throw new AppError('not_found', `brief ${id} does not exist in this workspace`);
  // A brief stored before proposals had their own group sent none of them.
  const brief: Brief = { ...row.response, proposed: row.response.proposed ?? [] };
  return { brief, request: row.request, created_at: row.created_at };
}
