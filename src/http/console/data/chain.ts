// Hash-chain checks for the console: the whole workspace (doco.verify_chains(), a full scan, so
// run on request and its result kept in doco.chain_checks, where `doco verify` records its result
// too) and one record (doco.verify_node_chain).
import type { Sql } from '../../../db/connect.js';
import { checkChains, recordChainChecks, verifyChains, type ChainBreak, type ChainCheckVia } from '../../../graph/chain-checks.js';

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

/** The check under way, per database handle: one scan serves every Re-verify pressed meanwhile. */
const running = new WeakMap<Sql, { breaks: Promise<ChainBreak[]>; elapsedMs: number }>();

/**
 * Recomputes every chain (and, with a home, checks them against the heads the last intact check
 * kept there) and records this workspace's share of the result (graph/chain-checks.ts). A check
 * reads the whole database, and any signed-in reader may ask for one: Re-verify pressed while a
 * check runs records that check's result instead of starting another, so presses at once (from
 * any workspace) cannot stack full scans; one pressed after it ends checks again.
 */
export async function runChainCheck(sql: Sql, workspaceId: string, principalId: string, home?: string): Promise<void> {
  let check = running.get(sql);
  if (!check) {
    const started = performance.now();
    const entry = { breaks: home ? checkChains(sql, home) : verifyChains(sql), elapsedMs: 0 };
    running.set(sql, (check = entry));
    const done = () => {
      entry.elapsedMs = Math.round(performance.now() - started);
      if (running.get(sql) === entry) running.delete(sql);
    };
    entry.breaks.then(done, done);
  }
  const breaks = await check.breaks;
  await recordChainChecks(sql, breaks, { via: 'console', principalId, workspaceId, elapsedMs: check.elapsedMs });
}

export async function verifyRecordChain(sql: Sql, id: string): Promise<{ version: number; problem: string }[]> {
  return sql<{ version: number; problem: string }[]>`select version, problem from doco.verify_node_chain(${id})`;
}
