// The documentation-alignment scan (docs/ingest.md): for a landed change, the ingested doc
// sections that expect the changed code. Three kinds of evidence per changed file — a section
// naming the path (or a blob URL of it, a path it ends with, its file name, a folder), a section
// naming an identifier the diff moves, and the sections hybrid search puts nearest the change —
// combined as independent signals (noisy-or), so one strong signal is enough and agreement adds.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import { withTouchedNames } from '../retrieval/retrieve.js';
import type { VectorStore } from '../providers/vector/port.js';
import type { ChangedFile } from './diff.js';
import { patchLines } from './diff.js';
import { changedIdentifiers, nameWords, spellings, type ChangedIdentifier } from './identifiers.js';
import { countSections, loadSections, pathTouches, sectionsNaming, semanticNeighbours, type SectionRow } from './lookups.js';
import { confidenceOf, summarise, type AlignReport, type Expectation, type FileReport } from './report.js';

export interface AlignDeps {
  sql: Sql;
  embedder: Embedder;
  store: VectorStore;
}

export interface AlignInput {
  changed: ChangedFile[];
  base?: string | null | undefined;
  head?: string | null | undefined;
}

/**
 * What each kind of evidence is worth on its own (its share of certainty), chosen with
 * `npm run eval -- align`. A section naming the file itself is near proof; its file name alone,
 * or a folder, much less; a name the diff removed or changed, named by few sections, is strong;
 * closeness in meaning alone is a hint.
 */
export const EVIDENCE = {
  exactPath: 0.95,
  suffixPath: 0.85,
  fileName: 0.5,
  folder: 0.3,
  identifier: 0.75,
  /** A name matched through another spelling (TimeoutCommit as timeout_commit) counts this share. */
  respelled: 0.85,
  semantic: 0.4,
} as const;

/** At most this many sections per changed file, and none below the floor. */
export const PER_FILE = 10;
export const SCORE_FLOOR = 0.2;
const NEIGHBOURS = 8;
/** A name held by more than this share of all doc sections (or 40 of them) tells nothing. */
const COMMON_SHARE = 0.05;
/** Spellings looked for between turns of the event loop. */
const SPELLINGS_PER_TURN = 25;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A spelling as a whole word (not inside a longer identifier), any case. */
const wholeWord = (spelling: string) => new RegExp(`(?<![A-Za-z0-9_])${escape(spelling)}(?![A-Za-z0-9_])`, 'i');

interface Evidence {
  strength: number;
  reason: string;
}

/** Noisy-or: independent signals, each a share of certainty. */
const combine = (ev: Evidence[]) => 1 - ev.reduce((p, e) => p * (1 - e.strength), 1);

function pathEvidence(changed: string, value: string): Evidence {
  const clean = changed.replace(/^(\.{1,2}\/|\/)+/, '');
  if (value === clean) return { strength: EVIDENCE.exactPath, reason: `touches ${value}` };
  if (clean.endsWith(`/${value}`)) {
    return value.includes('/')
      ? { strength: EVIDENCE.suffixPath, reason: `touches ${value} (a path ${clean} ends with)` }
      : { strength: EVIDENCE.fileName, reason: `names the file name ${value}` };
  }
  // A folder: the deeper (closer to the file), the stronger.
  const depth = clean.split('/').length - 1;
  const share = value.split('/').length / Math.max(1, depth);
  return { strength: EVIDENCE.folder * share, reason: `names the folder ${value}/` };
}

/**
 * Per file: the sections naming its changed identifiers (word-bounded, any spelling), each
 * identifier counted once per section at its best spelling, weighted by how few sections hold it.
 */
async function identifierEvidence(
  deps: AlignDeps,
  workspaceId: string,
  perFile: ChangedIdentifier[][],
  totalSections: number,
): Promise<Map<string, Evidence>[]> {
  const allSpellings = [...new Set(perFile.flat().flatMap((i) => spellings(i.name)))].slice(0, 600);
  const rows = await sectionsNaming(deps.sql, workspaceId, allSpellings);
  const common = Math.min(40, Math.max(3, totalSections * COMMON_SHARE));
  // Each pattern compiled once and each section's text built once: per pair, 600 spellings over a
  // few hundred sections compiled a hundred thousand patterns (4 s of one request, a hostile review).
  // A spelling's sections are looked for only until it is too common to tell anything (its name is
  // then passed over), a plain substring test goes before the pattern, and the event loop gets a
  // turn between spellings: 600 spellings over 5,000 sections held it 7.6 s (a second review).
  const texts = rows.map((r) => {
    const text = `${r.title}\n${r.prose}`;
    return { id: r.id, text, lower: text.toLowerCase() };
  });
  const holders = new Map<string, string[]>();
  for (const [n, spelling] of allSpellings.entries()) {
    if (n > 0 && n % SPELLINGS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const word = wholeWord(spelling);
    const lower = spelling.toLowerCase();
    const ids: string[] = [];
    for (const r of texts) {
      if (!r.lower.includes(lower) || !word.test(r.text)) continue;
      ids.push(r.id);
      if (ids.length > common) break;
    }
    holders.set(spelling, ids);
  }
  return perFile.map((idents) => {
    const perSection = new Map<string, Evidence[]>();
    for (const ident of idents) {
      const forms = spellings(ident.name).map((spelling) => ({ spelling, ids: holders.get(spelling) ?? [] }));
      const df = new Set(forms.flatMap((f) => f.ids)).size;
      if (!df || df > common) continue;
      // Fewer holders, more telling: 1 section → 1, 4 → 0.5, 16 → 0.33.
      const specificity = 1 / (1 + 0.5 * Math.log2(df));
      const best = new Map<string, Evidence>();
      for (const { spelling, ids } of forms) {
        const asWritten = spelling === ident.name.toLowerCase();
        const strength = EVIDENCE.identifier * ident.weight * specificity * (asWritten ? 1 : EVIDENCE.respelled);
        const change = ident.change === 'context' ? 'around the change' : ident.change;
        const reason = asWritten ? `names \`${ident.name}\` (${change})` : `names \`${spelling}\` (${ident.name}, ${change})`;
        for (const id of ids) if (strength > (best.get(id)?.strength ?? 0)) best.set(id, { strength, reason });
      }
      for (const [id, e] of best) perSection.set(id, [...(perSection.get(id) ?? []), e]);
    }
    const out = new Map<string, Evidence>();
    for (const [id, list] of perSection) {
      list.sort((a, b) => b.strength - a.strength);
      out.set(id, {
        strength: combine(list),
        reason: list
          .slice(0, 3)
          .map((e) => e.reason)
          .join('; '),
      });
    }
    return out;
  });
}

/** The text a semantic search for the change runs on: the path's names, the changed names in words, the changed comments. */
function describeChange(file: ChangedFile, idents: ChangedIdentifier[]): string {
  const names = idents.slice(0, 8).map((i) => nameWords(i.name));
  const comments = file.patch
    ? [...patchLines(file.patch).added, ...patchLines(file.patch).removed]
        .map((l) => l.trim())
        .filter((l) => /^(\/\/|#|\*|\/\*)/.test(l))
        .map((l) => l.replace(/^[/#*\s]+/, ''))
    : [];
  return withTouchedNames([...names, ...comments].join(' ').slice(0, 600), [file.path]).trim();
}

/** Which evidence the scan gathers: all of it, unless the eval measures one kind alone. */
export interface AlignSignals {
  paths: boolean;
  names: boolean;
  semantic: boolean;
}
const ALL_SIGNALS: AlignSignals = { paths: true, names: true, semantic: true };

export async function alignChanges(
  deps: AlignDeps,
  workspaceId: string,
  input: AlignInput,
  signals: AlignSignals = ALL_SIGNALS,
): Promise<AlignReport> {
  const files = dedupe(input.changed);
  const changedPaths = new Set(files.map((f) => f.path));
  const idents = files.map((f) => changedIdentifiers(f.path, f.patch));
  const totalSections = await countSections(deps.sql, workspaceId);
  const none = files.map(() => []);
  const [byName, touches, neighbours] = await Promise.all([
    signals.names ? identifierEvidence(deps, workspaceId, idents, totalSections) : files.map(() => new Map<string, Evidence>()),
    signals.paths ? Promise.all(files.map((f) => pathTouches(deps.sql, workspaceId, f.path))) : none,
    signals.semantic
      ? Promise.all(files.map((f, i) => semanticNeighbours(deps, workspaceId, describeChange(f, idents[i]!), NEIGHBOURS)))
      : none,
  ]);
  const ids = new Set<string>([
    ...byName.flatMap((m) => [...m.keys()]),
    ...touches.flat().map((t) => t.nodeId),
    ...neighbours.flat().map((n) => n.nodeId),
  ]);
  const sections = await loadSections(deps.sql, workspaceId, [...ids]);

  const reports: FileReport[] = files.map((file, i) => {
    const evidence = new Map<string, Evidence[]>();
    const add = (id: string, e: Evidence) => evidence.set(id, [...(evidence.get(id) ?? []), e]);
    const bestTouch = new Map<string, Evidence>();
    for (const t of touches[i]!) {
      const e = pathEvidence(file.path, t.value);
      if (e.strength > (bestTouch.get(t.nodeId)?.strength ?? 0)) bestTouch.set(t.nodeId, e);
    }
    for (const [id, e] of bestTouch) add(id, e);
    for (const [id, e] of byName[i]!) add(id, e);
    for (const n of neighbours[i]!) add(n.nodeId, { strength: EVIDENCE.semantic * n.share, reason: 'close in meaning to the change' });
    return { path: file.path, identifiers: idents[i]!.map((x) => x.name), expectations: rank(file.path, evidence, sections, changedPaths) };
  });
  return summarise(input.base ?? null, input.head ?? null, reports);
}

function rank(
  path: string,
  evidence: Map<string, Evidence[]>,
  sections: Map<string, SectionRow>,
  changedPaths: Set<string>,
): Expectation[] {
  const out: Expectation[] = [];
  for (const [id, ev] of evidence) {
    const s = sections.get(id);
    // A section of the changed file itself is the change, not an expectation of it.
    if (!s || s.path === path) continue;
    ev.sort((a, b) => b.strength - a.strength);
    let score = combine(ev);
    const reasons = ev.map((e) => e.reason);
    if (changedPaths.has(s.path)) {
      // Its doc changes in the same diff: probably brought up to date already.
      score *= 0.6;
      reasons.push(`${s.path} changes in this diff too`);
    }
    if (score < SCORE_FLOOR) continue;
    const rounded = Math.round(score * 1000) / 1000;
    out.push({
      id,
      path: s.path,
      heading: s.heading,
      section_key: s.section_key,
      title: s.title,
      confidence: confidenceOf(rounded),
      score: rounded,
      reason: reasons[0]!,
      reasons,
    });
  }
  return out.sort((a, b) => b.score - a.score || a.section_key.localeCompare(b.section_key)).slice(0, PER_FILE);
}

/** One entry per path (the last patch given wins), in first-seen order. */
function dedupe(changed: ChangedFile[]): ChangedFile[] {
  const byPath = new Map<string, ChangedFile>();
  for (const c of changed) byPath.set(c.path, c);
  return [...byPath.values()];
}
