// The secrets guard for doc sections. A section holding a credential is not written: a new one
// is not created, an existing record keeps its last clean version (and its manifest row, so the
// next clean run updates it). The section still counts as seen, so the reap never retires a
// record because its latest text carried a secret: retiring is final in Doco's lifecycle, and a
// doc fixed tomorrow would come back as a new record with a new id, its links and history cut.
// Each finding is reported by section_key, kind, field and line: never the value.
//
// Docs are where example credentials live (an RFC's sample request, a tutorial's made-up
// password), so a line carrying `doco:allow-secret` lets its finding through: the section is
// written as it stands, and the finding is reported as allowed so its author sees what was let
// in. Only this ingester honours the marker: on an API write it would let any caller, or an agent
// told to, store a key by adding one word (docs/ingest.md).
import type { SecretKind } from '../../text/secrets/detector.js';
import { findSecretsInFields } from '../../text/secrets/fields.js';
import type { DocSection } from './sections.js';

export interface SectionSecret {
  section_key: string;
  path: string;
  kind: SecretKind;
  /** `title`, `prose` or `body.…`, as in the record the section would have become. */
  field: string;
  /** The line within the section's text (its body, for `prose`), when the text gives it away. */
  line?: number;
}

type SectionRecordText = { title: string; prose: string; body: Record<string, unknown> };

/** What the guard found in a section: the findings that refuse it, and those its allow markers let through. */
export interface SectionScan {
  refused: SectionSecret[];
  allowed: SectionSecret[];
}

export function scanSectionSecrets(section: Pick<DocSection, 'section_key' | 'path'>, record: SectionRecordText): SectionScan {
  const scan: SectionScan = { refused: [], allowed: [] };
  for (const f of findSecretsInFields({ title: record.title, prose: record.prose, body: record.body }, { honourAllowMarker: true })) {
    const secret: SectionSecret = {
      section_key: section.section_key,
      path: section.path,
      kind: f.kind,
      field: f.field,
      ...(f.line === undefined ? {} : { line: f.line }),
    };
    (f.allowed ? scan.allowed : scan.refused).push(secret);
  }
  return scan;
}

/** The findings that keep a section out of the graph (those on a line marked doco:allow-secret do not). */
export function sectionSecrets(section: Pick<DocSection, 'section_key' | 'path'>, record: SectionRecordText): SectionSecret[] {
  return scanSectionSecrets(section, record).refused;
}

/** One line for a log: how many sections were skipped, and of which kinds. */
export function describeSectionSecrets(secrets: SectionSecret[]): string {
  const sections = new Set(secrets.map((s) => s.section_key)).size;
  const kinds = [...new Set(secrets.map((s) => s.kind))].join(', ');
  return `${sections} section(s) not written: they hold credentials (${kinds}); see the run's secrets`;
}

/** One line for a log: how many sections were written with secrets their allow markers let through. */
export function describeAllowedSecrets(allowed: SectionSecret[]): string {
  const sections = new Set(allowed.map((s) => s.section_key)).size;
  const kinds = [...new Set(allowed.map((s) => s.kind))].join(', ');
  return `${sections} section(s) written with ${allowed.length} secret(s) on lines marked doco:allow-secret (${kinds}), listed in the run's report as allowed_secrets`;
}
