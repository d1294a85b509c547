// The eval's printed tables: per corpus, recall@10 / MRR per system for all queries and for each
// query kind, the brief's sent-in-full recall, and (with --verbose) the brief's misses.
import { RECALL_AT, type BudgetSummary, type QueryScore, type Summary } from './metrics.js';
import { QUERY_KINDS, SYSTEMS, type EvalQuery, type SystemName } from './systems.js';

export type Breakdown = Record<'all' | (typeof QUERY_KINDS)[number], Record<SystemName, Summary>>;

export interface CorpusResult {
  /** The corpus, and for a second or later query set over it, which set: "… (set B)". */
  corpus: string;
  queries: number;
  providers: { embedder: string; store: string; reranker: string };
  index: { files: number; sections: number; records: number; edges: number; chunks: number };
  /** Per query kind (and all queries), per system. */
  kinds: Partial<Breakdown>;
  /** The brief at each budget it is measured at (the first is `kinds[…].brief`), per query kind. */
  brief_budgets: { budget: number; kinds: Partial<Record<keyof Breakdown, BudgetSummary>> }[];
  ms_per_query: Record<SystemName, number>;
  /** The brief's median milliseconds per step. */
  brief_steps_ms: Record<string, number>;
  /** The brief's mean size: items, items in full, tokens sent, held back. */
  brief_size: { items: number; expanded: number; tokens: number; held_back: number };
  /** Boot and ingest are shared by every query set over one corpus; queries_s is this set's. */
  timings: { boot_s: number; ingest_s: number; queries_s: number };
  warnings: string[];
  misses: string;
}

const f3 = (x: number) => x.toFixed(3);

export function formatCorpus(r: CorpusResult): string {
  const out: string[] = [];
  out.push(`Doco retrieval eval — ${r.corpus} (${r.queries} queries)`);
  out.push(`providers: embedder ${r.providers.embedder}, store ${r.providers.store}, reranker ${r.providers.reranker}`);
  out.push(
    `index: ${r.index.files} files → ${r.index.sections} sections, ${r.index.records} records, ${r.index.edges} edges; ${r.index.chunks} chunks`,
  );
  out.push(`time: boot ${r.timings.boot_s}s, ingest + drain ${r.timings.ingest_s}s, queries ${r.timings.queries_s}s`);
  const groups = (['all', ...QUERY_KINDS] as const).filter((k) => r.kinds[k]);
  const head = `${'recall@10 / MRR'.padEnd(16)}${groups.map((g) => `${g} (${r.kinds[g]!.brief.queries})`.padStart(18)).join('')}${'ms/query'.padStart(10)}`;
  out.push('', head);
  for (const s of SYSTEMS) {
    const cells = groups.map((g) => `${f3(r.kinds[g]![s].recall_at_10)} / ${f3(r.kinds[g]![s].mrr)}`.padStart(18)).join('');
    out.push(`${s.padEnd(16)}${cells}${r.ms_per_query[s].toFixed(1).padStart(10)}`);
  }
  out.push(`${'brief sent-full'.padEnd(16)}${groups.map((g) => f3(r.kinds[g]!.brief.sent_in_full).padStart(18)).join('')}`);
  out.push('brief: the real brief (4,000 tokens), items pooled across tiers by score; sent-full: targets among its expanded items.');
  out.push(
    "rrf_seed: the seed's equal-weight RRF (k = 60); bm25_path: BM25 with exact path touches first; bm25 / vector: the store alone.",
  );
  out.push('', ...formatBudgets(r));
  out.push(
    `brief size, mean: ${r.brief_size.items} items (${r.brief_size.expanded} in full), ${r.brief_size.tokens} tokens, ${r.brief_size.held_back} held back`,
  );
  out.push(
    `brief steps, median ms: ${Object.entries(r.brief_steps_ms)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  if (r.warnings.length)
    out.push('', `warnings: ${r.warnings.slice(0, 10).join('; ')}${r.warnings.length > 10 ? ` (+${r.warnings.length - 10} more)` : ''}`);
  return out.join('\n');
}

/** The brief at each budget, one row per budget and kind: what an agent gets at that size. */
function formatBudgets(r: CorpusResult): string[] {
  const cols = ['recall@10', 'sent', 'MRR', 'tokens', 'items', 'in full', 'precision'];
  const out = [`${'brief at budget'.padEnd(16)}${'kind'.padEnd(16)}${cols.map((c) => c.padStart(10)).join('')}`];
  for (const b of r.brief_budgets) {
    for (const [kind, s] of Object.entries(b.kinds)) {
      const cells = [
        f3(s.recall_at_10),
        f3(s.sent_in_full),
        f3(s.mrr),
        String(s.tokens),
        s.items.toFixed(1),
        s.expanded.toFixed(1),
        f3(s.expanded_precision),
      ];
      out.push(
        `${`${b.budget.toLocaleString('en')} tokens`.padEnd(16)}${`${kind} (${s.queries})`.padEnd(16)}${cells.map((c) => c.padStart(10)).join('')}`,
      );
    }
  }
  out.push(
    'sent: targets among the items sent in full; tokens: stats.sent_tokens; precision: targets among the items sent in full / items sent in full.',
  );
  return out;
}

/** The brief's misses, query by query: each missed target's rank in every system, and what the brief put first. */
export function formatMisses(
  perQuery: { query: EvalQuery; ranked: Record<SystemName, string[]> }[],
  scores: Record<SystemName, QueryScore[]>,
  ids: Map<string, string>,
): string {
  const keyOf = new Map([...ids].map(([k, id]) => [id, k]));
  const lines: string[] = ['brief misses (targets outside its top 10, or not sent in full):'];
  perQuery.forEach(({ query, ranked }, qi) => {
    const brief = scores.brief[qi]!;
    if (brief.recall === 1 && brief.sent === 1) return;
    lines.push(
      `${query.id} [${query.kind ?? '?'}] "${query.about}"${query.touching.length ? ` touching ${query.touching.join(', ')}` : ''}`,
    );
    query.relevant.forEach((target, ti) => {
      const r = brief.ranks[ti];
      const at = (s: SystemName) => {
        const rank = scores[s][qi]!.ranks[ti];
        return `${s} ${rank === undefined ? '—' : `#${rank}`}`;
      };
      if (r !== undefined && r <= RECALL_AT) return;
      lines.push(`  missed ${target}: ${SYSTEMS.map(at).join(', ')}`);
    });
    lines.push(
      `  brief's top 3: ${ranked.brief
        .slice(0, 3)
        .map((id) => keyOf.get(id) ?? id)
        .join(' | ')}`,
    );
  });
  if (lines.length === 1) lines.push('  none');
  return lines.join('\n');
}
