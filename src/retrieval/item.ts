// One result, as the brief and search return it (docs/brief.md): a stable JSON contract.

/**
 * Lifecycles of a proposal: written (often by an agent) and waiting for a person's review. Only
 * active records are knowledge (docs/brief.md): a proposal is never an order, never in a tier or
 * the synthesis, and is sent at most once, in the brief's own `proposed` group.
 */
export const PROPOSAL_LIFECYCLES: readonly string[] = ['drafting', 'queued'];
export const isProposal = (row: { lifecycle: string }) => PROPOSAL_LIFECYCLES.includes(row.lifecycle);
export type SourceKind = 'record' | 'doc' | 'github' | 'slack' | 'notion' | 'drive' | 'docs_pack';

export interface Item {
  id: string;
  node_type: string;
  collection: string;
  lifecycle: string;
  title: string;
  text: string;
  expanded: boolean;
  because: string;
  score: number;
  updated_at: string;
  source: { kind: SourceKind; pointer: Record<string, unknown> };
  /** Set when the record names a file the caller's checkout deleted (git says so). */
  possibly_stale?: boolean;
}
