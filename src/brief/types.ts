// The brief's request and response shapes (docs/brief.md): stable JSON contracts.
import * as v from 'valibot';
import { SlugSchema } from '../graph/schemas.js';
import { AfterChangesetSchema } from '../retrieval/reader.js';

/**
 * The moments a request may name: years 1 to 9999. JavaScript reads "0000-01-01" and
 * "-000001-01-01" as dates, but Postgres has no year 0 and reads no sign, so such a moment would
 * fail in the query instead of here.
 */
const FIRST_MOMENT = new Date('0001-01-01T00:00:00Z').getTime();
const LAST_MOMENT = new Date('9999-12-31T23:59:59.999Z').getTime();
const inYearsPostgresReads = (s: string) => {
  const t = Date.parse(s);
  return t >= FIRST_MOMENT && t <= LAST_MOMENT;
};
const YEARS_MESSAGE = 'must fall in the years 0001 to 9999';

/** `since` is a duration back from now (30m, 12h, 7d, 2w) or an ISO date/time. */
const SinceSchema = v.config(
  v.pipe(
    v.string(),
    v.check((s) => /^\d{1,5}[mhdw]$/.test(s) || !Number.isNaN(Date.parse(s)), 'must be a duration like 7d, 12h, 30m, 2w or an ISO date'),
    v.check((s) => /^\d{1,5}[mhdw]$/.test(s) || inYearsPostgresReads(s), YEARS_MESSAGE),
  ),
  { abortPipeEarly: true },
);

/**
 * `as_of` is a past moment: an ISO date (midnight UTC) or date and time with its zone (Z or
 * +02:00), so "as of 09:00" is never read in the server's zone.
 */
const AsOfSchema = v.config(
  v.pipe(
    v.string(),
    v.regex(
      /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i,
      'must be an ISO date (2025-06-01) or date and time with its zone (2025-06-01T09:30:00Z, 2025-06-01T11:30+02:00)',
    ),
    v.check((s) => !Number.isNaN(Date.parse(s)), 'must be a real date and time'),
    v.check(inYearsPostgresReads, YEARS_MESSAGE),
    v.check((s) => Date.parse(s) <= Date.now(), 'must not be in the future: a brief as of a time answers from what was recorded by then'),
  ),
  // One reason at a time: "nope" is not a date, and saying it is not in the past adds nothing.
  { abortPipeEarly: true },
);

/** At most this many code terms in a brief request, each at most this long (docs/brief.md, "Code terms"). */
export const MAX_CODE_TERMS = 32;
export const MAX_CODE_TERM_CHARS = 100;

/**
 * An identifier of the code an edit writes: a function, type, field or config key as code spells
 * it (`WriteSync`, `timeout_commit`, `tx_index.indexer`, `max-fetched-series-per-query`).
 */
const CodeTermSchema = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(MAX_CODE_TERM_CHARS, `must be at most ${MAX_CODE_TERM_CHARS} characters`),
  v.regex(/^[A-Za-z_$][\w$.-]*$/, 'must be an identifier: a letter, _ or $, then letters, digits, _, $, . or -'),
);

export const BriefRequestSchema = v.strictObject({
  about: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(8000, 'must be at most 8000 characters')),
  touching: v.optional(
    v.pipe(v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1000))), v.maxLength(100, 'must list at most 100 paths')),
    [],
  ),
  budget: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(200), v.maxValue(100_000)), 4000),
  since: v.optional(SinceSchema, '7d'),
  collection: v.optional(SlugSchema),
  /** The identifiers of the code being written (an edit hook sends them): records naming them are evidence. */
  code_terms: v.optional(v.pipe(v.array(CodeTermSchema), v.maxLength(MAX_CODE_TERMS, `must list at most ${MAX_CODE_TERMS} identifiers`))),
  deadline_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(50), v.maxValue(120_000)), 15_000),
  /** Answer as the records stood then (their versions and lifecycles at that time). */
  as_of: v.optional(AsOfSchema),
  /** The changeset_id of the caller's own write: the brief sees it (docs/replica.md). */
  after_changeset: v.optional(AfterChangesetSchema),
});
export type BriefRequest = v.InferOutput<typeof BriefRequestSchema>;

export type TierName = 'must_obey' | 'already_decided' | 'in_motion' | 'background';
export const TIER_ORDER: TierName[] = ['must_obey', 'already_decided', 'in_motion', 'background'];
/** Where a sent item goes: a tier (approved knowledge) or, for a proposal, the `proposed` group. */
export type Group = TierName | 'proposed';

// What a proposal is (src/retrieval/item.ts), where retrieval reads it too.
export { isProposal, PROPOSAL_LIFECYCLES } from '../retrieval/item.js';

export type { Item, SourceKind } from '../retrieval/item.js';
import type { Item } from '../retrieval/item.js';

export interface Brief {
  brief_id: string;
  about: string;
  touching: string[];
  budget: number;
  since: string;
  /** Present only on a brief asked `as_of`: the moment it answers for, in UTC. */
  as_of?: string;
  tiers: Record<TierName, Item[]>;
  /**
   * Relevant proposals (`queued` or `drafting`): not approved, so not knowledge. Beside the tiers,
   * not in them, so a client that reads only the tiers reads only approved records. Briefs stored
   * before this field existed lack it: readers take it as empty.
   */
  proposed: Item[];
  gaps: string[];
  synthesis: { text: string; cites: string[] };
  warnings: string[];
  stats: { candidates: number; items: number; held_back: number; searched_tokens: number; sent_tokens: number; elapsed_ms: number };
  receipt: string;
  /** Milliseconds per step (seeds, hop, fusion, rerank and synthesis, tiers, budget): for diagnosis. */
  timings?: Record<string, number>;
}

export function sinceToDate(since: string, now = new Date()): Date {
  const m = since.match(/^(\d+)([mhdw])$/);
  if (!m) return new Date(since);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 'm' | 'h' | 'd' | 'w'];
  return new Date(now.getTime() - Number(m[1]) * unit);
}
