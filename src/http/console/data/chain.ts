// Hash-chain checks for the console: the whole workspace (doco.verify_chains(), a full scan, so
// run on request and its result kept in doco.chain_checks) and one record (doco.verify_node_chain).
import type { Sql } from '../../../db/connect.js';

export interface ChainCheck {
  checked_at: Date;
  intact: boolean;
  broken_links: number;
  first_break: string | null;
  elapsed_ms: number;
  principal: string | null;
}

export async function lastChainCheck(sql: Sql, workspaceId: string): Promise<ChainCheck | undefined> {
  const [row] = await sql<ChainCheck[]>`
    select k.checked_at, k.intact, k.broken_links, k.first_break, k.elapsed_ms, p.title as principal
      from doco.chain_checks k left join doco.nodes p on p.id = k.principal_id
     where k.workspace_id = ${workspaceId} order by k.checked_at desc, k.id desc limit 1`;
  return row;
}

/**
 * Recomputes every chain and keeps the breaks that belong to this workspace (another
 * workspace's ids are never shown), then records the result.
 */
export async function runChainCheck(sql: Sql, workspaceId: string, principalId: string): Promise<void> {
  const started = performance.now();
  const broken = await sql<{ kind: string; id: string; version: number; problem: string }[]>`
    select b.kind, b.id, b.version, b.problem from doco.verify_chains() b
     where (b.kind = 'node' and (exists (select 1 from doco.nodes n where n.id = b.id and n.workspace_id = ${workspaceId})
                                 or exists (select 1 from doco.node_versions v where v.node_id = b.id and v.workspace_id = ${workspaceId})))
        or (b.kind = 'edge' and (exists (select 1 from doco.edges e where e.id = b.id and e.workspace_id = ${workspaceId})
                                 or exists (select 1 from doco.edge_versions v where v.edge_id = b.id and v.workspace_id = ${workspaceId})))`;
  const first = broken[0];
  await sql`
    insert into doco.chain_checks (workspace_id, principal_id, intact, broken_links, first_break, elapsed_ms)
    values (${workspaceId}, ${principalId}, ${broken.length === 0}, ${broken.length},
            ${first ? `${first.kind} ${first.id} v${first.version}: ${first.problem}` : null}, ${Math.round(performance.now() - started)})`;
}

export async function verifyRecordChain(sql: Sql, id: string): Promise<{ version: number; problem: string }[]> {
  return sql<{ version: number; problem: string }[]>`select version, problem from doco.verify_node_chain(${id})`;
}
