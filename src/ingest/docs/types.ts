// The doc ingester's contract, shared by the filesystem walk, docs packs, the CLI and the job.
import type { SectionSecret } from './section-secrets.js';
import type { DocSection } from './sections.js';

/** 'fs' for the filesystem ingester, `pack:<code>` for a docs pack. */
export type IngestSource = 'fs' | `pack:${string}`;

/**
 * A file the run looked at: its sections, or why it could not be read (it then keeps its
 * sections). A path ending in '/' is a directory that could not be listed: every file under it
 * keeps its sections.
 */
export type FileRead = { path: string; sections: DocSection[] } | { path: string; error: string };

export interface IngestInput {
  workspaceId: string;
  principalId: string;
  source: IngestSource;
  /** Where the files came from (a directory, or a pack's base URL), for the runs table. */
  root: string;
  /** Every file this run looked at. */
  files: FileRead[];
  /** A run forced to named files reaps only within them (the reap's first guard, docs/ingest.md). */
  only?: string[];
  /** The collection the records go into, made from the documentation template when missing (default 'docs'). */
  collection?: string;
}

export type ReapOutcome = 'reaped' | 'nothing_to_reap' | 'refused';

export interface IngestReport {
  run_id: number;
  created: number;
  updated: number;
  skipped: number;
  unchanged_files: number;
  unreadable: string[];
  reap: { outcome: ReapOutcome; reason: string | null; count: number };
  /** Sections not written because they hold a credential (section-secrets.ts). */
  secrets: SectionSecret[];
  /** Credentials on lines marked `doco:allow-secret` in the sections this run wrote: let through, and listed here. */
  allowed_secrets: SectionSecret[];
}

export type IngestProgress =
  | { kind: 'files'; total: number }
  | { kind: 'section'; done: number; total: number }
  | { kind: 'reap'; outcome: ReapOutcome };
