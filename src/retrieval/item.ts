// One result, as the brief and search return it (docs/brief.md): a stable JSON contract.
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
