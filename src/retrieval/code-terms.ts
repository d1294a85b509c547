// The code-terms seed list (docs/brief.md, "Code terms"): records whose title or text names an
// identifier of the code being written (`WriteSync`, `timeout_commit`), as written or in another
// spelling a doc uses for it (timeout_commit for TimeoutCommit), case-blind and word-bounded. A
// name few records hold is telling; one many records hold (a type every file uses) tells nothing.
import type { Sql } from '../db/connect.js';
import { escapeRegExp } from '../lib/escape-regexp.js';
import type { Embedder } from '../providers/embedder.js';
import type { VectorStore } from '../providers/vector/port.js';
import { spellings } from '../text/identifiers.js';
import { bm25Seeds, SEED_LIMIT, type SeedList } from './retrievers.js';

/** A name held by at least this many records is one every change touches: it is left out. */
export const COMMON_CODE_TERM = 25;
/** The BM25 candidates each name is checked against: enough to see that a name is common. */
const CANDIDATES_PER_TERM = 40;

/** Fewer holders, more telling: 1 record → 1, 4 → 0.5, 16 → 0.33 (as the alignment scan weighs names). */
export const specificity = (holders: number) => 1 / (1 + 0.5 * Math.log2(holders));

/** A name in any of its spellings, case-blind, bounded by anything but a letter, digit or _. */
export const namePattern = (name: string) =>
  new RegExp(`(?<![A-Za-z0-9_])(?:${spellings(name).map(escapeRegExp).join('|')})(?![A-Za-z0-9_])`, 'i');

/**
 * Each name's candidates come from the index's BM25 (its words, whichever spelling: the
 * tokenizer splits camelCase, snake_case, dots and dashes alike), and their text is then read for
 * which of them name it exactly. Not Postgres full text alone: its parser reads `mempool.recheck` as one
 * host-like token and `-querier.max-fetched-series-per-query` as other words than
 * `max_fetched_series_per_query`; and not a scan of every record's text, which costs ~0.15 ms a
 * record (130 ms on the eval's 900 sections). The check is JavaScript's, not a Postgres regex:
 * a case-blind word-bounded ARE took ~30 µs a record.
 */
export async function codeTermSeeds(
  deps: { sql: Sql; embedder: Embedder; store: VectorStore },
  workspaceId: string,
  terms: string[],
  limit = SEED_LIMIT,
): Promise<SeedList> {
  const names = [...new Set(terms)];
  const found = await Promise.all(names.map((n) => bm25Seeds(deps, workspaceId, n, undefined, CANDIDATES_PER_TERM)));
  const candidates = [...new Set(found.flatMap((l) => l.ids))];
  if (!candidates.length) return { name: 'code_terms', ids: [], scores: [], because: new Map() };
  const texts = await deps.sql<{ id: string; text: string }[]>`
    select id, title || ' ' || prose as text from doco.nodes where workspace_id = ${workspaceId} and id = any(${candidates}::text[])`;
  const textOf = new Map(texts.map((t) => [t.id, t.text]));
  const rows: { id: string; i: number }[] = [];
  found.forEach((list, i) => {
    const pattern = namePattern(names[i]!);
    for (const id of list.ids) if (pattern.test(textOf.get(id) ?? '')) rows.push({ id, i: i + 1 });
  });
  const holders = names.map(() => 0);
  for (const r of rows) holders[r.i - 1]!++;
  const score = new Map<string, number>();
  const because = new Map<string, string>();
  const named = new Map<string, string>();
  const rarest = new Map<string, number>();
  for (const { id, i } of rows) {
    const held = holders[i - 1]!;
    if (held >= COMMON_CODE_TERM) continue;
    score.set(id, (score.get(id) ?? 0) + specificity(held));
    if (held < (rarest.get(id) ?? Infinity)) {
      rarest.set(id, held);
      named.set(id, names[i - 1]!);
      because.set(id, `names \`${names[i - 1]}\`, in the code being written`);
    }
  }
  const ranked = [...score.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
  return { name: 'code_terms', ids: ranked.map(([id]) => id), scores: ranked.map(([, s]) => s), because, named };
}
