// The three small reads every brief makes beside its retrievers: the constitution (standing
// orders, in every brief), the glossary terms the ask names, and the index's size (the receipt's
// "searched"). One statement, not three: each statement costs Postgres and this process a round
// trip beyond its own work, about 0.1 ms of Postgres CPU on this machine (docs/eval.md, "Session
// 17").
import type { Sql } from '../db/connect.js';
import { loadConstitutionAsOf } from './as-of.js';
import { constitutionFromJson, constitutionJson, searchedTokens, tokensOfChars, type CandidateRow } from './candidates.js';
import { glossaryList, glossaryRowsNamedBy, glossarySeeds, type GlossaryRow, type SeedList } from './retrievers.js';

export interface BriefContext {
  constitution: CandidateRow[];
  glossary: SeedList;
  /** Tokens the workspace's index holds. */
  searched: number;
}

/** As of a time, the constitution as it stood then (its own statement); the glossary and the index as they are. */
export async function loadBriefContext(sql: Sql, workspaceId: string, about: string, asOf?: Date): Promise<BriefContext> {
  if (asOf) {
    const [constitution, glossary, searched] = await Promise.all([
      loadConstitutionAsOf(sql, workspaceId, asOf),
      glossarySeeds(sql, workspaceId, about),
      searchedTokens(sql, workspaceId),
    ]);
    return { constitution, glossary, searched };
  }
  const [row] = await sql<{ constitution: Parameters<typeof constitutionFromJson>[0]; glossary: GlossaryRow[]; chars: string | null }[]>`
    select ${constitutionJson(sql, workspaceId)} as constitution,
           coalesce((select json_agg(g) from (${glossaryRowsNamedBy(sql, workspaceId, about)}) g), '[]') as glossary,
           (select sum(chars)::text from doco.index_stats where workspace_id = ${workspaceId}) as chars`;
  return {
    constitution: constitutionFromJson(row!.constitution),
    glossary: glossaryList(row!.glossary, about),
    searched: tokensOfChars(row!.chars),
  };
}
