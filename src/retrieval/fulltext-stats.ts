// The words the full-text seed leaves out of an ask (retrievers.ts, fulltextSeeds), from the
// planner's statistics on doco.nodes.search_tsv. Reading them through pg_stats cost Postgres
// ~0.45 ms a brief (the view's joins, and the cast of its anyarray of lexemes), a fifth of the
// seed, for figures that change only when the table is analysed. So they are read at most once a
// minute per database handle, and a brief that finds them older still uses them while they are
// read again for the next one: a word's count may lag an ANALYZE by that minute.

import type { Sql } from '../db/connect.js';

/**
 * The most rows a full-text word may match (the planner's estimate over doco.nodes) and still be
 * ranked (retrievers.ts says why). Above every labelled eval corpus (under 1,000 sections), so
 * their figures cannot move; the 100k-record bench's service names (5,000 rows each) are above it.
 */
export const FULLTEXT_MAX_MATCHES = 2000;
/** A word in at least this share of the records is searched only when nothing else is left. */
export const COMMON_SHARE = 0.2;
const REFRESH_MS = 60_000;

export interface DroppedLexemes {
  /** In more than FULLTEXT_MAX_MATCHES records: never searched. */
  tooMany: string[];
  /** In at least COMMON_SHARE of the records and not too many: searched only when the ask holds nothing else. */
  common: string[];
}

interface Remembered {
  readAt: number;
  lexemes: Promise<DroppedLexemes>;
  /** Set while a newer read is under way. */
  refreshing?: true;
}

const remembered = new WeakMap<Sql, Remembered>();

async function readDropped(sql: Sql): Promise<DroppedLexemes> {
  // most_common_elem_freqs holds three more entries than most_common_elems (the least and
  // greatest frequency, and the share of nulls): unnest pads their lexeme with null.
  const rows = await sql<{ elem: string; too_many: boolean }[]>`
    select e.elem, e.freq * greatest(t.reltuples, 0) > ${FULLTEXT_MAX_MATCHES} as too_many
      from pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(elem, freq), pg_class t
     where s.schemaname = 'doco' and s.tablename = 'nodes' and s.attname = 'search_tsv'
       and t.oid = 'doco.nodes'::regclass and e.elem is not null
       and (e.freq >= ${COMMON_SHARE} or e.freq * greatest(t.reltuples, 0) > ${FULLTEXT_MAX_MATCHES})`;
  return { tooMany: rows.filter((r) => r.too_many).map((r) => r.elem), common: rows.filter((r) => !r.too_many).map((r) => r.elem) };
}

/** The lexemes to leave out, as of at most a minute ago (the first call on a handle waits for them). */
export function droppedLexemes(sql: Sql, now = performance.now()): Promise<DroppedLexemes> {
  const known = remembered.get(sql);
  if (!known) {
    const entry: Remembered = { readAt: now, lexemes: readDropped(sql) };
    remembered.set(sql, entry);
    // A failed first read is not remembered: the next brief tries again.
    entry.lexemes.catch(() => remembered.get(sql) === entry && remembered.delete(sql));
    return entry.lexemes;
  }
  if (now - known.readAt >= REFRESH_MS && !known.refreshing) {
    known.refreshing = true;
    readDropped(sql).then(
      (fresh) => remembered.set(sql, { readAt: performance.now(), lexemes: Promise.resolve(fresh) }),
      // A failed refresh keeps the last figures, and is tried again a minute on.
      () => remembered.set(sql, { readAt: performance.now(), lexemes: known.lexemes }),
    );
  }
  return known.lexemes;
}
