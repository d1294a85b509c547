// Which tier an item is shown in (docs/brief.md, step 4), and which candidates are sent at all.
// Tiers order the presentation; relevance decides what is sent: only the constitution is
// carried whatever the ask (compactly), everything else must clear the relevance floor, and at
// most four architecture principles stand as orders (the "consult principles" call takes the top
// 4, docs/ingest.md), those nearly as relevant as the best candidate; further ones compete with
// everything else in the lower tiers. Only active records are knowledge: a relevant proposal
// (queued or drafting) goes to the `proposed` group, never to a tier, so it neither stands as an
// order nor takes an order's place (a principle slot, the constitution's).
import type { CandidateMeta } from '../retrieval/candidates.js';
import { isProposal, type Group, type TierName } from './types.js';
import { statusNotInForce } from '../text/adr-status.js';

/** Below this share of the best candidate's relevance nothing is sent: a short brief beats filler. */
export const RELEVANCE_FLOOR = 0.2;
/** Architecture principles that may stand under must obey (the "consult principles" call takes the top 4, docs/ingest.md). */
export const MAX_PRINCIPLES = 4;
/**
 * The relevance (a share of the best candidate's) an architecture principle needs to stand as an
 * order; under it, it competes with the rest below. With the sending floor alone, ADRs that
 * barely bore on an ask stood first under must obey: on CometBFT's docs (all of whose ADRs are
 * under docs/architecture/), 3.9 orders a brief of which 15% were what the labelled ask needed;
 * at 0.75, 1.8 a brief and 26%, keeping 84% of the needed ones as orders (docs/eval.md). The
 * eval's recall and sent figures do not depend on it: tiers order what relevance already chose.
 */
export const PRINCIPLE_FLOOR = 0.75;

export const isConstitution = (row: CandidateMeta) => row.template === 'constitution';
export const isPrinciple = (row: CandidateMeta) => row.body.shape === 'architecturePrinciple';

/**
 * The parts of an architecture decision record that state no principle: its bookkeeping (status,
 * changelog, references), the situation it starts from (context, background, the current design,
 * the problem, the motivation), the options it did not take, its consequences and its open
 * questions (the sections of CometBFT's ADR template and Nygard's, beside Decision and Detailed
 * Design). Over CometBFT's labelled asks the bookkeeping, options and consequences were 30 of the
 * 290 orders briefs gave at 4,000 tokens, one of them an ask's target (docs/eval.md, "Session
 * 15"); a rejected alternative under must obey reads as an order to do what the ADR decided
 * against, and a context as an order to keep what the ADR changed (ADR 067's "Current Design": the
 * FIFO mempool it replaced). Later, the situation sections were 92 of 415 orders over CometBFT's
 * five sets at both budgets, 12 of them an ask's target (docs/eval.md, "Session 33"). They are
 * still sent, below, by relevance.
 */
const NOT_AN_ORDER =
  /^(?:status|change ?log|revision history|references|links|further reading|context|background|current (?:design|state|implementation)|problem(?: statement)?|motivation|alternatives?(?: considered| approaches)?|alternative approaches|rejected alternatives|consequences|positive|negative|neutral|(?:positive|negative|neutral) consequences|open questions|open issues)$/i;

const pathOf = (row: CandidateMeta) => {
  const path = (row.body.pointer as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : '';
};

/** A template's sections are its instructions to an author ("This section contains all the context…"), no principle. */
const isTemplate = (row: CandidateMeta) => /(?:^|[/_-])template\.mdx?$/i.test(pathOf(row));

/** A folder's README or index lists its records ("Implemented: - [ADR-047: …](./adr-047-….md)"): no principle either. */
const isIndex = (row: CandidateMeta) => /(?:^|\/)(?:readme|_?index)\.mdx?$/i.test(pathOf(row));

/**
 * A principle section that may stand as an order: not one of an ADR's sections that state none
 * (nor under one), not of an ADR that is not in force, not of a template or a folder's index.
 */
function mayStandAsOrder(row: CandidateMeta): boolean {
  if (statusNotInForce(row.body) || isTemplate(row) || isIndex(row)) return false;
  const heading = (row.body.pointer as { heading?: unknown } | undefined)?.heading;
  const parents = Array.isArray(row.body.heading_path) ? row.body.heading_path.slice(1) : [];
  return ![heading, ...parents].some((h) => typeof h === 'string' && NOT_AN_ORDER.test(h.trim()));
}

export interface Placed {
  id: string;
  tier: Group;
  relevance: number;
  /** A standing order carried whatever the ask: sent as one line unless it is also relevant. */
  standing: boolean;
}

/** Candidates in order of relevance → their tiers; those under the floor are dropped. */
export function placeInTiers(ids: string[], rows: Map<string, CandidateMeta>, relevance: Map<string, number>, since: Date): Placed[] {
  const placed: Placed[] = [];
  let principles = 0;
  for (const id of ids) {
    const row = rows.get(id)!;
    const r = relevance.get(id) ?? 0;
    const relevant = r >= RELEVANCE_FLOOR;
    if (isProposal(row)) {
      if (relevant) placed.push({ id, tier: 'proposed', relevance: r, standing: false });
      continue;
    }
    if (isConstitution(row)) {
      placed.push({ id, tier: 'must_obey', relevance: r, standing: !relevant });
      continue;
    }
    if (!relevant) continue;
    const principleSlot = isPrinciple(row) && r >= PRINCIPLE_FLOOR && mayStandAsOrder(row) && principles++ < MAX_PRINCIPLES;
    placed.push({ id, tier: tierOf(row, since, principleSlot), relevance: r, standing: false });
  }
  return placed;
}

/** A doc section as first ingested: new to the workspace, not a change in flight. */
const firstIngest = (row: CandidateMeta) => row.body.source_type === 'doc_expectation' && row.version === 1;

/** Whether a record changed since `since` (a doc section's first ingest is no change). */
export const changedSince = (row: CandidateMeta, since: Date) => row.updated_at >= since && !firstIngest(row);

function tierOf(row: CandidateMeta, since: Date, principleSlot: boolean): TierName {
  if (row.node_type === 'rule' && row.lifecycle === 'active') return 'must_obey';
  if (principleSlot) return 'must_obey';
  if (row.node_type === 'decision' && row.lifecycle === 'active') return 'already_decided';
  if (changedSince(row, since)) return 'in_motion';
  return 'background';
}

/** The standing reason a tier gives, when no retriever had a sharper one. */
export function standingReason(row: CandidateMeta, tier: Group): string | undefined {
  if (isProposal(row)) return undefined;
  if (isConstitution(row)) return row.node_type === 'rule' ? 'standing rule' : 'in the constitution';
  if (row.node_type === 'rule' && row.lifecycle === 'active') return 'standing rule';
  if (isPrinciple(row) && tier === 'must_obey') return 'architecture principle';
  return undefined;
}
