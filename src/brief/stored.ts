// Every brief is stored, so receipts and commit trailers can link to it; it is read back
// (GET /briefs/:id) always within its workspace. The response is stored deflated by the server
// (migrations/0032_briefs_deflated.sql says why); its receipt and the ids of the items it sent
// stay columns SQL can read.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import type { Brief, BriefRequest } from './types.js';

/**
 * The fastest level: a brief's 27 kB of JSON deflates in ~0.04 ms of CPU at it, and every brief
 * pays it. On the event loop, not zlib's thread-pool form: that one's stream machinery cost three
 * times the CPU of the compression itself (0.11–0.13 against 0.035 ms), most of it on the loop.
 */
const LEVEL = 1;

interface BriefOwner {
  workspaceId: string;
  principalId: string | null;
}

/**
 * Stores a brief as it was sent, with the request it answered (already redacted). Answers the
 * brief's JSON it stored: a route that sends JSON sends that text rather than serialising the
 * brief again (~0.35 ms for a 4,000-token brief).
 */
export async function storeBrief(sql: Sql, owner: BriefOwner, request: BriefRequest, brief: Brief): Promise<string> {
  const json = JSON.stringify(brief);
  const deflated = deflateRawSync(json, { level: LEVEL });
  const itemIds = [...Object.values(brief.tiers).flat(), ...brief.proposed].map((item) => item.id);
  // A receipt: committed without waiting for the disk (sql/receipts.sql says what that risks).
  await sql`
    insert into doco.briefs (id, workspace_id, principal_id, request, response_deflated, receipt, item_ids)
    select ${brief.brief_id}, ${owner.workspaceId}, ${owner.principalId}, ${sql.json(request as never)}, ${deflated},
           ${brief.receipt}, ${itemIds}
      from doco.commit_receipt_unflushed()`;
  return json;
}

type StoredResponse = Omit<Brief, 'proposed'> & Partial<Pick<Brief, 'proposed'>>;

export async function getStoredBrief(
  sql: Sql,
  workspaceId: string,
  id: string,
): Promise<{ brief: Brief; request: unknown; created_at: Date; principal_id: string | null }> {
  const [row] = await sql<
    { request: unknown; response: StoredResponse | null; response_deflated: Buffer | null; created_at: Date; principal_id: string | null }[]
  >`
    select request, response, response_deflated, created_at, principal_id from doco.briefs where id = ${id} and workspace_id = ${workspaceId}`;
  if (!row)
    throw new AppError(
      'not_found',
      `brief ${id} does not exist in this workspace (stored briefs are deleted after DOCO_BRIEFS_KEEP_DAYS days, 90 unless the server sets it)`,
    );
  // A brief stored before migration 0032 holds its response as jsonb.
  const response: StoredResponse = row.response ?? JSON.parse(inflateRawSync(row.response_deflated!).toString('utf8'));
  // A brief stored before proposals had their own group sent none of them.
  const brief: Brief = { ...response, proposed: response.proposed ?? [] };
  return { brief, request: row.request, created_at: row.created_at, principal_id: row.principal_id };
}
