// The doc-ingestion contract's section rules (docs/ingest.md): the watched set of files,
// the ## / ### split with "(intro)", the 2,400-character truncation, the 200-character floor,
// section_key = relpath#slug(heading) (a heading repeated in one file: -2, -3…), shape by path,
// and the record a section becomes. Pure apart from reading files (through tree.ts).
import type { RecordShape } from '../../graph/record-shapes.js';
import { lexMarkdownLines, type MarkdownLines } from '../../text/markdown-lines.js';
import { adrStatusOf } from './adr-status.js';
import { isSkippedName, listDocTree, readDocFile } from './tree.js';

export const BODY_MAX_CHARS = 2400;
export const BODY_MIN_CHARS = 200;
export const SLUG_MAX_CHARS = 60;
export const INTRO_HEADING = '(intro)';

export type SectionShape = Extract<RecordShape, 'architecturePrinciple' | 'docSection'>;

export interface DocSection {
  /** Repository-relative path with forward slashes, e.g. docs/core/mempool.md. */
  path: string;
  /** The heading text, or "(intro)" for the text before the first heading. */
  heading: string;
  section_key: string;
  shape: SectionShape;
  /** The section body (heading line excluded), trimmed and truncated to 2,400 characters. */
  body: string;
  /** The document's title: its first `#` heading, else its path. */
  docTitle: string;
  /** The `##` heading a `###` section sits under; empty for `##` sections and the intro. */
  parents: string[];
  /** An architecture file's status as it states it ("Rejected", "Accepted (tracked in …)"), when it states one. */
  status?: string;
}

export interface SplitReport {
  sections: DocSection[];
  /** Sections whose body was under the floor: never emitted. */
  belowFloor: number;
  /** Sections cut at 2,400 characters. */
  truncated: number;
  /** section_keys the file repeated: the later sections got -2, -3… */
  repeated: string[];
}

/** lowercase, runs of non-alphanumerics → '-', leading/trailing '-' trimmed, then 60 characters. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_CHARS);
}

export const sectionKey = (relPath: string, heading: string) => `${relPath}#${slug(heading)}`;

export function shapeOf(relPath: string): SectionShape {
  return relPath.startsWith('docs/architecture/') ? 'architecturePrinciple' : 'docSection';
}

/** A level-1 ATX heading line. Only its start: a lazy title with optional closing hashes backtracked over every space of a long line (a 40,000-character line took 1.8 s). */
const TITLE_HEADING = /^ {0,3}#[ \t]/;

/**
 * The key of each heading in one file, in order. A repeated heading keeps both sections: the
 * later ones are suffixed -2, -3… (past the 60-character slug), never dropped. Every heading
 * takes its key, a section under the floor too, and "(intro)" always holds `#intro`, so a
 * section's key does not move when a neighbour grows past the floor or an intro is added.
 */
export function sectionKeys(relPath: string, headings: string[]): { keys: string[]; repeated: string[] } {
  const used = new Set<string>();
  const repeated: string[] = [];
  const keys = headings.map((heading) => {
    const base = slug(heading);
    let key = base;
    for (let n = 2; used.has(key); n++) key = base ? `${base}-${n}` : String(n);
    used.add(key);
    if (key !== base) repeated.push(`${relPath}#${base}`);
    return `${relPath}#${key}`;
  });
  return { keys, repeated: [...new Set(repeated)] };
}

/** One `##`/`###` section of a file as written, before the floor and the cut; the intro is level 0. */
export interface RawSection {
  heading: string;
  /** 0 for the intro, else 2 or 3. */
  level: 0 | 2 | 3;
  /** 1-based line of the heading; for the intro, of its first line (1, or the line after a front-matter block). */
  line: number;
  /** The body lines, the heading line excluded. */
  lines: string[];
  /** The `##` heading a `###` sits under. */
  parent?: string;
}

/**
 * How the ingester and lint-docs read a file: a leading `---` … `---` block is front matter
 * (Hugo's, Jekyll's, Docusaurus's page metadata), which no reader of the page sees as its text.
 */
export const lexDoc = (text: string): MarkdownLines => lexMarkdownLines(text, { frontMatter: true });

/**
 * Cuts a file at its `##` and `###` headings, the intro first. Headings inside fenced code
 * blocks are not headings (a `## comment` in a shell example does not start a section); # and
 * #### and deeper stay in the body of the section they sit in. Front matter is no section's
 * text: the intro starts after it.
 */
export function splitRawSections(text: string): RawSection[] {
  return rawSectionsOf(lexDoc(text));
}

/** splitRawSections over a text already lexed (lint-docs reads the lines' kinds too). */
export function rawSectionsOf({ lines, kinds, headings }: MarkdownLines): RawSection[] {
  let from = 0;
  while (kinds[from] === 'front-matter') from++;
  const raw: RawSection[] = [{ heading: INTRO_HEADING, level: 0, line: from + 1, lines: [] }];
  let h2: string | undefined;
  for (const { line, level, text } of headings) {
    if (level !== 2 && level !== 3) continue;
    raw[raw.length - 1]!.lines = lines.slice(from, line);
    raw.push({ heading: text, level, line: line + 1, lines: [], ...(level === 3 && h2 ? { parent: h2 } : {}) });
    if (level === 2) h2 = text;
    from = line + 1;
  }
  raw[raw.length - 1]!.lines = lines.slice(from);
  return raw;
}

/** Splits one file into the sections the ingester emits: the floor, the cut and the keys applied. */
export function splitMarkdown(relPath: string, text: string): SplitReport {
  const lexed = lexDoc(text);
  const raw = rawSectionsOf(lexed);
  // The document's title: its first `#` heading outside code. (A front matter's `title:` measured
  // no better, and the path it would replace tells an agent which file to open: docs/eval.md, "Session 15".)
  const docTitle = lexed.headings.find((h) => h.level === 1)?.text ?? relPath;
  const shape = shapeOf(relPath);
  const status = shape === 'architecturePrinciple' ? adrStatusOf(lexed) : undefined;
  const { keys, repeated } = sectionKeys(relPath, raw.map((r) => r.heading));
  const report: SplitReport = { sections: [], belowFloor: 0, truncated: 0, repeated };
  raw.forEach(({ heading, parent, lines }, i) => {
    const full = lines.join('\n').trim();
    // No intro at all, or only the document's # title: nothing the floor drops, nothing to count.
    if (heading === INTRO_HEADING && lines.every((l) => !l.trim() || TITLE_HEADING.test(l))) return;
    if (full.length < BODY_MIN_CHARS) {
      report.belowFloor++;
      return;
    }
    if (full.length > BODY_MAX_CHARS) report.truncated++;
    report.sections.push({ path: relPath, heading, section_key: keys[i]!, shape, body: full.slice(0, BODY_MAX_CHARS), docTitle, parents: parent ? [parent] : [], ...(status ? { status } : {}) });
  });
  return report;
}

// The listing lives in tree.ts, which keeps it inside the root; re-exported for its callers here.
export { listDocFiles, type OnUnreadableDir } from './tree.js';

/** Whether a repository-relative path is in the watched set (for a run forced to named files). */
export function isWatchedPath(rel: string): boolean {
  const parts = rel.split('/');
  if (!rel.endsWith('.md') || parts.some((p) => p === '' || isSkippedName(p))) return false;
  if (parts.length === 1) return rel === 'CLAUDE.md' || rel === 'README.md';
  if (parts[0] === 'repos') return parts.length === 3 && (parts[2] === 'CLAUDE.md' || parts[2] === 'README.md');
  return parts[0] === 'docs' && parts[1] !== 'archive';
}

export interface CorpusReport {
  files: number;
  sections: DocSection[];
  belowFloor: number;
  truncated: number;
  /** section_keys a file repeated: the later sections were kept as -2, -3… */
  duplicateKeys: string[];
}

export async function readCorpus(root: string): Promise<CorpusReport> {
  const { files } = await listDocTree(root);
  const report: CorpusReport = { files: files.length, sections: [], belowFloor: 0, truncated: 0, duplicateKeys: [] };
  for (const { path: rel, real } of files) {
    const split = splitMarkdown(rel, await readDocFile(real));
    report.belowFloor += split.belowFloor;
    report.truncated += split.truncated;
    report.sections.push(...split.sections);
    report.duplicateKeys.push(...split.repeated);
  }
  return report;
}

/** A section's title, heading and heading path, each at most this long (a record's title holds 300). */
const HEADING_MAX_CHARS = 300;

/** Where a section's record came from: the filesystem ingester, or a docs pack. */
export type SectionSourceKind = 'doc' | 'docs_pack';

/**
 * The record a section becomes: a `reference` in the documentation collection. Its title leads
 * with the document's title ("Mempool — Context", the intro just "Mempool"), so a section named
 * like many others is findable by what it belongs to; the heading path names the document and
 * the `##` a `###` sits under. (Measured with `npm run eval`: brief recall@10 on the CometBFT
 * docs 0.72 → 0.76, MRR on the Ledgerly fixture 0.739 → 0.751, against heading-only titles.)
 */
export function sectionRecord(s: DocSection, sourceKind: SectionSourceKind = 'doc') {
  const title = s.heading === INTRO_HEADING ? s.docTitle : `${s.docTitle} — ${s.heading}`;
  // Headings as long as the title may be: a pack's 450,000-character heading was kept whole in
  // the record's body, and each brief citing it grew by as much (a hostile review).
  const cut = (text: string) => text.slice(0, HEADING_MAX_CHARS);
  return {
    node_type: 'reference' as const,
    title: cut(title),
    prose: s.body,
    body: {
      shape: s.shape, source_kind: sourceKind, source_type: 'doc_expectation',
      pointer: { path: s.path, heading: cut(s.heading), section_key: s.section_key },
      heading_path: [cut(s.docTitle), ...s.parents.map(cut)],
      ...(s.status ? { adr_status: s.status } : {}),
    },
  };
}
