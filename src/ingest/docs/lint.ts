// The author rules of docs/ingest.md ("Author rules") over a docs tree, before it is
// ingested: sections the floor drops, text past the cut, colliding keys, renamed architecture
// headings (key churn) and dated claims. Pure apart from reading the files.
import { findDatedClaims } from './dated-claims.js';
import { isCode, type LineKind } from '../../text/markdown-lines.js';
import { BODY_MAX_CHARS, BODY_MIN_CHARS, lexDoc, rawSectionsOf, sectionKey, sectionKeys, shapeOf, SLUG_MAX_CHARS, type RawSection } from './sections.js';
import { listDocTree, readDocFile } from './tree.js';

export type LintRule = 'below-floor' | 'past-truncation' | 'duplicate-key' | 'renamed-heading' | 'dated-claim';
export type LintSeverity = 'error' | 'warning';

export interface LintFinding {
  rule: LintRule;
  severity: LintSeverity;
  /** Repository-relative, as in the section_key. */
  path: string;
  /** 1-based line the finding points at. */
  line: number;
  heading: string;
  section_key: string;
  message: string;
}

/** A row of the last ingest's manifest (doco.doc_manifest, source 'fs'). */
export interface ManifestKey {
  section_key: string;
  path: string;
}

export interface DocText {
  path: string;
  text: string;
}

interface Section {
  raw: RawSection;
  path: string;
  /** The key the ingester files the section under. */
  key: string;
  /** relpath#slug(heading): what two same-named headings share, whatever the ingester then does. */
  baseKey: string;
  /** Trimmed, as the ingester measures it. */
  body: string;
  /** Characters trimmed from the front of the joined lines: body[i] is joined[lead + i]. */
  lead: number;
  /** The body lines with code and link targets blanked, same lengths, for the prose rules. */
  masked: string[];
  architecture: boolean;
}

const RULE_ORDER: LintRule[] = ['duplicate-key', 'below-floor', 'past-truncation', 'renamed-heading', 'dated-claim'];
const blank = (s: string) => ' '.repeat(s.length);
const maskInline = (line: string) =>
  line
    .replace(/(`+)[^`]*?\1/g, blank)
    .replace(/\]\([^)]*\)/g, blank)
    .replace(/<!--.*?-->/g, blank)
    .replace(/https?:\/\/\S+/g, blank);

/**
 * Blanks fenced code blocks and inline code, link targets, comments and URLs, keeping offsets.
 * `kinds` are the file's, `from` the index of the first of `lines` in it.
 */
function maskCode(lines: string[], kinds: LineKind[], from: number): string[] {
  return lines.map((line, i) => (isCode(kinds[from + i]!) ? blank(line) : maskInline(line)));
}

function sectionsOf(relPath: string, text: string): Section[] {
  const architecture = shapeOf(relPath) === 'architecturePrinciple';
  const lexed = lexDoc(text);
  const raws = rawSectionsOf(lexed);
  const { keys } = sectionKeys(relPath, raws.map((r) => r.heading));
  return raws.map((raw, i) => {
    const joined = raw.lines.join('\n');
    const body = joined.trim();
    // The body starts on the line after the heading's: at 0-based index raw.line; the intro's on its own first line.
    const masked = maskCode(raw.lines, lexed.kinds, raw.level ? raw.line : raw.line - 1);
    return { raw, path: relPath, key: keys[i]!, baseKey: sectionKey(relPath, raw.heading), body, lead: joined.length - joined.trimStart().length, masked, architecture };
  });
}

const bodyLine = (s: Section) => (s.raw.level ? s.raw.line + 1 : s.raw.line);
/** The file line holding body[offset]. */
const lineAt = (s: Section, offset: number) => bodyLine(s) + s.raw.lines.join('\n').slice(0, s.lead + offset).split('\n').length - 1;

const finding = (s: Section, rule: LintRule, severity: LintSeverity, message: string, line = s.raw.line): LintFinding => ({
  rule,
  severity,
  path: s.path,
  line,
  heading: s.raw.heading,
  section_key: s.key,
  message,
});

/**
 * A section under the floor is never ingested. Quiet for an empty intro, an intro that is only a
 * `# Title`, and an empty heading whose next heading is deeper (## Group over its ### parts):
 * there is nothing for the floor to drop. An intro with prose is a warning, even in architecture.
 */
function belowFloor(s: Section, next: Section | undefined): LintFinding[] {
  const n = s.body.length;
  if (n >= BODY_MIN_CHARS) return [];
  if (s.raw.level === 0) {
    if (!s.raw.lines.some((l) => l.trim() && !/^ {0,3}#(\s|$)/.test(l))) return [];
    return [finding(s, 'below-floor', 'warning', `the text before the first ## heading is ${n} characters, under the ${BODY_MIN_CHARS}-character floor: it is never ingested`)];
  }
  if (n === 0 && next && next.raw.level > s.raw.level) return [];
  const why = `body is ${n} characters, under the ${BODY_MIN_CHARS}-character floor: this section is never ingested, and a version ingested before is retracted`;
  return [finding(s, 'below-floor', s.architecture ? 'error' : 'warning', `${why}; expand it past ${BODY_MIN_CHARS} characters or remove the heading`)];
}

/**
 * Load-bearing cues (case-insensitive, whole words, outside code): obligation and invariant
 * words whose loss changes what a reader may do. In an architecture section, cut text holding
 * one is an error: the drafter is handed the section without the rule.
 */
const CUES = /\b(?:must(?:n't| not)?|shall(?: not)?|never|always|required|forbidden|prohibited|mandatory|invariants?)\b/gi;

function pastTruncation(s: Section): LintFinding[] {
  if (s.body.length <= BODY_MAX_CHARS) return [];
  const words = s.body.slice(BODY_MAX_CHARS).trim().split(/\s+/);
  const midWord = /\S/.test(s.body[BODY_MAX_CHARS - 1]!) && /\S/.test(s.body[BODY_MAX_CHARS]!);
  const quote = `${midWord ? '…' : ''}${words.slice(0, 8).join(' ')}${words.length > 8 ? ' …' : ''}`;
  const maskedCut = s.masked.join('\n').slice(s.lead + BODY_MAX_CHARS, s.lead + s.body.length);
  const cues = new Map<string, string>();
  for (const m of maskedCut.matchAll(CUES)) if (!cues.has(m[0].toLowerCase())) cues.set(m[0].toLowerCase(), m[0]);
  const cut = s.body.length - BODY_MAX_CHARS;
  let message = `body is ${s.body.length} characters: the last ${cut} past the ${BODY_MAX_CHARS}-character cut never reach a reader, from "${quote}"`;
  if (cues.size) message += `; the cut text holds load-bearing wording (${[...cues.values()].slice(0, 4).map((c) => `"${c}"`).join(', ')}): move it before the cut or split the section`;
  return [finding(s, 'past-truncation', s.architecture && cues.size ? 'error' : 'warning', message, lineAt(s, BODY_MAX_CHARS))];
}

/**
 * Headings of one file that slug alike share a section_key. Whether the ingester then keeps one
 * or suffixes the later (-2, -3…), the key no longer names the section by its heading alone.
 */
function duplicateKeys(sections: Section[]): LintFinding[] {
  const first = new Map<string, Section>();
  const out: LintFinding[] = [];
  for (const s of sections) {
    if (s.raw.level === 0 && !s.body) continue;
    const prior = first.get(s.baseKey);
    if (!prior) {
      first.set(s.baseKey, s);
      continue;
    }
    const where = prior.raw.level ? `"${prior.raw.heading}" on line ${prior.raw.line}` : 'the text before the first heading';
    const filed = s.key !== s.baseKey ? ` (filed as "${s.key}", a key that moves when a same-named heading above it comes or goes)` : '';
    const message = `section_key "${s.baseKey}" is also the key of ${where}${filed}: make the headings differ in their letters or digits (the first ${SLUG_MAX_CHARS} count)`;
    out.push(finding(s, 'duplicate-key', 'error', message));
  }
  return out;
}

function datedClaims(s: Section): LintFinding[] {
  if (!s.architecture) return [];
  const lines: [string, number][] = s.raw.level ? [[maskInline(s.raw.heading), s.raw.line]] : [];
  s.masked.forEach((text, i) => lines.push([text, bodyLine(s) + i]));
  return lines.flatMap(([text, line]) =>
    findDatedClaims(text).map((c) =>
      finding(s, 'dated-claim', 'warning', `dated claim "${c.text}" (${c.kind}): once ingested it is recalled as a standing claim long after it stops holding; say what a reader can expect to be true, undated`, line),
    ),
  );
}

/** Dice similarity of two slugs' character bigrams: pairs each vanished key with its likeliest successor. */
function similarity(a: string, b: string): number {
  const grams = (s: string) => Array.from({ length: Math.max(0, s.length - 1) }, (_, i) => s.slice(i, i + 2));
  const ga = grams(a);
  const gb = grams(b);
  if (!ga.length || !gb.length) return 0;
  const pool = [...gb];
  let shared = 0;
  for (const g of ga) {
    const i = pool.indexOf(g);
    if (i >= 0) {
      shared++;
      pool.splice(i, 1);
    }
  }
  return (2 * shared) / (ga.length + gb.length);
}

/**
 * Architecture keys the last ingest saw whose file is still here but whose key is not, paired
 * with keys new to that file since. A key gone with nothing new beside it is a deletion, which
 * the reap retracts: not churn.
 */
function renamedHeadings(relPath: string, sections: Section[], previous: ManifestKey[]): LintFinding[] {
  if (shapeOf(relPath) !== 'architecturePrinciple') return [];
  const before = new Set(previous.filter((k) => k.path === relPath).map((k) => k.section_key));
  const now = new Set(sections.map((s) => s.key));
  const gone = [...before].filter((k) => !now.has(k));
  const fresh = sections.filter((s, i) => s.raw.level > 0 && !before.has(s.key) && sections.findIndex((t) => t.key === s.key) === i);
  const slugOf = (key: string) => key.slice(key.indexOf('#') + 1);
  const candidates = gone.flatMap((old) => fresh.map((s) => ({ old, s, score: similarity(slugOf(old), slugOf(s.key)) })));
  candidates.sort((a, b) => b.score - a.score || a.s.raw.line - b.s.raw.line || a.old.localeCompare(b.old));
  const paired = new Set<string>();
  const out: LintFinding[] = [];
  for (const { old, s } of candidates) {
    if (paired.has(old) || paired.has(s.key)) continue;
    paired.add(old).add(s.key);
    const message = `renamed "${old}" → "${s.key}" since the last ingest; headings under docs/architecture are a frozen interface: the old record is retired and a new one minted with a fresh embedding and no usage behind it — keep the heading, change the body`;
    out.push(finding(s, 'renamed-heading', 'warning', message));
  }
  return out;
}

/**
 * Every finding for these files, in file order, then by line. `previous` is the last ingest's
 * manifest for this tree; without it the renamed-heading rule does not run.
 */
export function lintDocs(files: DocText[], previous?: ManifestKey[]): LintFinding[] {
  const parsed = files.map((f) => ({ path: f.path, sections: sectionsOf(f.path, f.text) }));
  const perFile = parsed.map(({ path: relPath, sections }) => {
    const found = [
      ...duplicateKeys(sections),
      ...sections.flatMap((s, i) => [...belowFloor(s, sections[i + 1]), ...pastTruncation(s), ...datedClaims(s)]),
      ...(previous ? renamedHeadings(relPath, sections, previous) : []),
    ];
    return found.sort((a, b) => a.line - b.line || RULE_ORDER.indexOf(a.rule) - RULE_ORDER.indexOf(b.rule));
  });
  return perFile.flat();
}

/** Reads the watched set under `root` (the ingester's walk) and lints it. */
export async function lintDocsTree(root: string, previous?: ManifestKey[]): Promise<{ files: string[]; findings: LintFinding[] }> {
  const tree = await listDocTree(root);
  const texts = await Promise.all(tree.files.map(async (f) => ({ path: f.path, text: await readDocFile(f.real) })));
  return { files: tree.files.map((f) => f.path), findings: lintDocs(texts, previous) };
}
