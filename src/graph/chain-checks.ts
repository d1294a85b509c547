// Hash-chain verification (doco.verify_chains(), a full scan) and its record in doco.chain_checks,
// one row per workspace, whoever ran it: the console's Re-verify checks its workspace, `doco
// verify` the whole database and records every workspace's share. The console's overview shows
// the latest row (docs/console.md).
import type { Sql } from '../db/connect.js';

export interface ChainBreak {
  kind: string;
  id: string;
  version: number;
  problem: string;
}

/** Where a check was run from: the console's Re-verify, or `doco verify`. */
export type ChainCheckVia = 'console' | 'cli';

/** Every break in every chain of the database, in doco.verify_chains()'s order. */
export async function verifyChains(sql: Sql): Promise<ChainBreak[]> {
  return sql<ChainBreak[]>`select kind, id, version, problem from doco.verify_chains()`;
}

export const describeBreak = (b: ChainBreak) => `${b.kind} ${b.id} v${b.version}: ${b.problem}`;

/**
 * Records a check of `breaks` (all of them, from one verifyChains()): one row for `workspaceId`,
 * or, without it, one for every workspace. Each row counts only the breaks of its workspace's
 * records and edges (a break is its record's or edge's, or its version rows' when the row itself
 * is gone), so no workspace is ever shown another's ids.
 */
export async function recordChainChecks(
  sql: Sql,
  breaks: ChainBreak[],
  opts: { via: ChainCheckVia; elapsedMs: number; principalId?: string | null; workspaceId?: string },
): Promise<void> {
  const rows = breaks.map((b, ord) => ({ ord, kind: b.kind, id: b.id, text: describeBreak(b) }));
  await sql`
    with b as (
      select * from jsonb_to_recordset(${sql.json(rows as never)}::jsonb) as x(ord int, kind text, id text, text text)
    ), owned as (
      select b.ord, b.text,
             case when b.kind = 'node'
                  then coalesce((select n.workspace_id from doco.nodes n where n.id = b.id),
                                (select v.workspace_id from doco.node_versions v where v.node_id = b.id limit 1))
                  else coalesce((select e.workspace_id from doco.edges e where e.id = b.id),
                                (select v.workspace_id from doco.edge_versions v where v.edge_id = b.id limit 1)) end as workspace_id
        from b
    )
    insert into doco.chain_checks (workspace_id, principal_id, via, intact, broken_links, first_break, elapsed_ms)
    select w.id, ${opts.principalId ?? null}, ${opts.via}, count(o.ord) = 0, count(o.ord),
           (array_agg(o.text order by o.ord) filter (where o.ord is not null))[1], ${opts.elapsedMs}
      from doco.workspaces w left join owned o on o.workspace_id = w.id
     where ${opts.workspaceId ?? null}::text is null or w.id = ${opts.workspaceId ?? null}
     group by w.id`;
}
