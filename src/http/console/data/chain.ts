// Hash-chain checks for the console: the whole workspace (doco.verify_chains(), a full scan, so
// run on request and its result kept in doco.chain_checks, where `doco verify` records its result
// too) and one record (doco.verify_node_chain).
import type { Sql } from '../../../db/connect.js';
import { checkChains, recordChainChecks, verifyChains, type ChainCheckVia } from '../../../graph/chain-checks.js';

export interface ChainCheck {
  checked_at: Date;
  intact: boolean;
  broken_links: number;
  first_break: string | null;
  elapsed_ms: number;
  principal: string | null;
  via: ChainCheckVia;
}

export async function lastChainCheck(sql: Sql, workspaceId: string): Promise<ChainCheck | undefined> {
  const [row] = await sql<ChainCheck[]>`
    select k.checked_at, k.via, k.intact, k.broken_links, k.first_break, k.elapsed_ms, p.title as principal
      from doco.chain_checks k left join doco.nodes p on p.id = k.principal_id
     where k.workspace_id = ${workspaceId} order by k.checked_at desc, k.id desc limit 1`;
  return row;
}

/**
 * Recomputes every chain (and, with a home, checks them against the heads the last intact check
 * kept there) and records this workspace's share of the result (graph/chain-checks.ts).
 */
export async function runChainCheck(sql: Sql, workspaceId: string, principalId: string, home?: string): Promise<void> {
  const started = performance.now();
  const breaks = home ? await checkChains(sql, home) : await verifyChains(sql);
  await recordChainChecks(sql, breaks, { via: 'console', principalId, workspaceId, elapsedMs: Math.round(performance.now() - started) });
}

export async function verifyRecordChain(sql: Sql, id: string): Promise<{ version: number; problem: string }[]> {
  return sql<{ version: number; problem: string }[]>`select version, problem from doco.verify_node_chain(${id})`;
}
