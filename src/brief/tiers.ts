// Which tier a record belongs in (DESIGN §4 step 4) and why it is there.
import type { CandidateRow } from '../search/candidates.js';
import type { TierName } from './types.js';

export function tierOf(row: CandidateRow, since: Date): TierName {
  if (row.template === 'constitution') return 'must_obey';
  if (row.node_type === 'rule' && row.lifecycle === 'active') return 'must_obey';
  if (row.body.shape === 'architecturePrinciple') return 'must_obey';
  if (row.node_type === 'decision' && row.lifecycle === 'active') return 'already_decided';
  if (row.updated_at >= since) return 'in_motion';
  return 'background';
}

/** The standing reason a tier gives, when no retriever had a sharper one. */
export function standingReason(row: CandidateRow): string | undefined {
  if (row.template === 'constitution') return row.node_type === 'rule' ? 'standing rule' : 'in the constitution';
  if (row.node_type === 'rule' && row.lifecycle === 'active') return 'standing rule';
  if (row.body.shape === 'architecturePrinciple') return 'architecture principle';
  return undefined;
}
