// Hash-chain verification (doco.verify_chains(), a full scan; then the chain's heads against those
// the last intact check kept in DOCO_HOME) and its record in doco.chain_checks, one row per
// workspace, whoever ran it: the console's Re-verify checks its workspace, `doco verify` the whole
// database and records every workspace's share. The console's overview shows the latest row
// (docs/console.md).
import { chainAnchorFile, readChainAnchor, writeChainAnchor } from '../config/chain-anchor-file.js';
import type { Sql } from '../db/connect.js';

export interface ChainBreak {
  kind: string;
  id: string;
  version: number;
  problem: string;
  /**
   * What only the operator is shown (`doco verify`): a history break's version counts and the
   * anchor file's path are the whole database's and the server's, so the problem that every
   * workspace's console records leaves them out.
   */
  detail?: string;
}

/** Where a check was run from: the console's Re-verify, or `doco verify`. */
export type ChainCheckVia = 'console' | 'cli';

/** Every break in every chain of the database, in doco.verify_chains()'s order. */
export async function verifyChains(sql: Sql): Promise<ChainBreak[]> {
  return sql<ChainBreak[]>`select kind, id, version, problem from doco.verify_chains()`;
}

/** A break of the history as a whole: it belongs to every workspace. */
export const HISTORY_BREAK = 'history';

/**
 * verifyChains, then the chain's heads as they stood when the last intact check in `home` kept
 * them, against the heads now recorded for that time: a rewrite that recomputed every hash after
 * it verifies clean, but not against heads kept outside the database. A check that finds nothing
 * keeps the heads as of now (or just before the oldest write still open) for the next.
 */
export async function checkChains(sql: Sql, home: string): Promise<ChainBreak[]> {
  // Read before the chains are: every version recorded by then is committed and in what follows.
  const [{ at, database }] = (await sql`
    select doco.utc_text(doco.chain_settled_at()) as at,
           (select system_identifier from pg_control_system())::text || ':' || current_database() as database`) as unknown as [
    { at: string; database: string },
  ];
  const breaks = await verifyChains(sql);
  const kept = await readChainAnchor(home, database);
  if (kept) {
    const now = await chainHeads(sql, kept.at);
    if (now.digest !== kept.digest)
      breaks.push({
        kind: HISTORY_BREAK,
        id: kept.at,
        version: 0,
        problem: `the chains as they stood at ${kept.at} are not the same now: history before then was rewritten or removed`,
        detail: `${kept.versions} versions under the heads kept in ${chainAnchorFile(home)} by the last check that found them intact; ${now.versions} under those recorded for that time now`,
      });
  }
  if (!breaks.length) await writeChainAnchor(home, database, { at, ...(await chainHeads(sql, at)) });
  return breaks;
}

async function chainHeads(sql: Sql, at: string): Promise<{ versions: number; digest: string }> {
  const [row] = await sql<{ versions: number; digest: string }[]>`select versions::int, digest from doco.chain_heads(${at}::timestamptz)`;
  return row!;
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
      select b.ord, b.text, b.kind,
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
      from doco.workspaces w left join owned o on o.workspace_id = w.id or o.kind = ${HISTORY_BREAK}
     where ${opts.workspaceId ?? null}::text is null or w.id = ${opts.workspaceId ?? null}
     group by w.id`;
}
