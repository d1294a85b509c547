// The doc-ingestion contract's section rules (seed 001, DESIGN §6): the watched set of files,
// the ## / ### split with "(intro)", the 2,400-character truncation, the 200-character floor,
// section_key = relpath#slug(heading), and shape by path. Pure apart from reading files.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const BODY_MAX_CHARS = 2400;
export const BODY_MIN_CHARS = 200;
export const SLUG_MAX_CHARS = 60;
export const INTRO_HEADING = '(intro)';

export type SectionShape = 'architecturePrinciple' | 'docSection';

export interface DocSection {
  /** Repository-relative path with forward slashes, e.g. docs/core/mempool.md. */
  path: string;
  /** The heading text, or "(intro)" for the text before the first heading. */
  heading: string;
  section_key: string;
  shape: SectionShape;
  /** The section body (heading line excluded), trimmed and truncated to 2,400 characters. */
  body: string;
}

export interface SplitReport {
  sections: DocSection[];
  /** Sections whose body was under the floor: never emitted. */
  belowFloor: number;
  /** Sections cut at 2,400 characters. */
  truncated: number;
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

const HEADING = /^ {0,3}(#{2,3})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits one file into its sections. Headings inside fenced code blocks are not headings (a
 * `## comment` in a shell example does not start a section); # and #### and deeper stay in the
 * body of the section they sit in.
 */
export function splitMarkdown(relPath: string, text: string): SplitReport {
  const raw: { heading: string; lines: string[] }[] = [{ heading: INTRO_HEADING, lines: [] }];
  let fence: string | undefined;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const f = line.match(FENCE);
    if (f) {
      const marker = f[1]!;
      if (!fence) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    }
    const h = fence || f ? null : line.match(HEADING);
    if (h && h[2]!.trim()) raw.push({ heading: h[2]!.trim(), lines: [] });
    else raw[raw.length - 1]!.lines.push(line);
  }
  const shape = shapeOf(relPath);
  const report: SplitReport = { sections: [], belowFloor: 0, truncated: 0 };
  for (const { heading, lines } of raw) {
    const full = lines.join('\n').trim();
    if (heading === INTRO_HEADING && full === '') continue; // no intro at all: nothing to count
    if (full.length < BODY_MIN_CHARS) {
      report.belowFloor++;
      continue;
    }
    if (full.length > BODY_MAX_CHARS) report.truncated++;
    report.sections.push({ path: relPath, heading, section_key: sectionKey(relPath, heading), shape, body: full.slice(0, BODY_MAX_CHARS) });
  }
  return report;
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist']);
const skipped = (name: string) => name.startsWith('.') || SKIP_DIRS.has(name);

async function walkMarkdown(root: string, rel: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (skipped(e.name)) continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (child === 'docs/archive') continue;
      await walkMarkdown(root, child, out);
    } else if (e.isFile() && e.name.endsWith('.md')) out.push(child);
  }
}

/**
 * The watched set, repository-relative: the root CLAUDE.md and README.md, repos/<x>/CLAUDE.md and
 * repos/<x>/README.md, and docs/**\/*.md (skipping docs/archive/, node_modules, .git, dist and
 * dotted entries).
 */
export async function listDocFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const exists = async (rel: string) => (await readdir(path.join(root, path.dirname(rel))).catch(() => [] as string[])).includes(path.basename(rel));
  for (const top of ['CLAUDE.md', 'README.md']) if (await exists(top)) files.push(top);
  const repos = await readdir(path.join(root, 'repos'), { withFileTypes: true }).catch(() => []);
  for (const r of repos.filter((d) => d.isDirectory() && !skipped(d.name)).sort((a, b) => a.name.localeCompare(b.name))) {
    for (const f of ['CLAUDE.md', 'README.md']) if (await exists(`repos/${r.name}/${f}`)) files.push(`repos/${r.name}/${f}`);
  }
  await walkMarkdown(root, 'docs', files);
  return files;
}

export interface CorpusReport {
  files: number;
  sections: DocSection[];
  belowFloor: number;
  truncated: number;
  /** section_keys met more than once: the later section wins, as the ingester's update would. */
  duplicateKeys: string[];
}

export async function readCorpus(root: string): Promise<CorpusReport> {
  const files = await listDocFiles(root);
  const byKey = new Map<string, DocSection>();
  const duplicateKeys: string[] = [];
  let belowFloor = 0;
  let truncated = 0;
  for (const rel of files) {
    const split = splitMarkdown(rel, await readFile(path.join(root, rel), 'utf8'));
    belowFloor += split.belowFloor;
    truncated += split.truncated;
    for (const s of split.sections) {
      if (byKey.has(s.section_key)) {
        duplicateKeys.push(s.section_key);
        byKey.delete(s.section_key); // re-inserted below, so the record keeps the file's order
      }
      byKey.set(s.section_key, s);
    }
  }
  return { files: files.length, sections: [...byKey.values()], belowFloor, truncated, duplicateKeys };
}

/** The record a section becomes: a `reference` in the documentation collection. */
export function sectionRecord(s: DocSection) {
  return {
    node_type: 'reference' as const,
    title: (s.heading === INTRO_HEADING ? path.posix.basename(s.path) : s.heading).slice(0, 300),
    prose: s.body,
    body: { shape: s.shape, source_kind: 'doc', source_type: 'doc_expectation', pointer: { path: s.path, heading: s.heading, section_key: s.section_key } },
  };
}
