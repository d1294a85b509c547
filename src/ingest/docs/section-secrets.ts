// The secrets guard for doc sections. A section holding a credential is not written: a new one
// is not created, an existing record keeps its last clean version (and its manifest row, so the
// next clean run updates it). The section still counts as seen, so the reap never retires a
// record because its latest text carried a secret: retiring is final in Doco's lifecycle, and a
// doc fixed tomorrow would come back as a new record with a new id, its links and history cut.
// Each finding is reported by section_key, kind, field and line: never the value.
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

export function sectionSecrets(section: Pick<DocSection, 'section_key' | 'path'>, record: { title: string; prose: string; body: Record<string, unknown> }): SectionSecret[] {
  return findSecretsInFields({ title: record.title, prose: record.prose, body: record.body }).map((f) => ({
    section_key: section.section_key,
    path: section.path,
    kind: f.kind,
    field: f.field,
    ...(f.line === undefined ? {} : { line: f.line }),
  }));
}

/** One line for a log: how many sections were skipped, and of which kinds. */
export function describeSectionSecrets(secrets: SectionSecret[]): string {
  const sections = new Set(secrets.map((s) => s.section_key)).size;
  const kinds = [...new Set(secrets.map((s) => s.kind))].join(', ');
  return `${sections} section(s) not written: they hold credentials (${kinds}); see the run's secrets`;
}
