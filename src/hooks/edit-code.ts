// The code an edit hook event carries, read for the brief (docs/brief.md, "Code terms"): the lines
// the edit removes and adds, whichever agent and tool wrote them, and the distinctive identifiers
// of those lines, at most MAX_CODE_TERMS of them. The code itself goes no further than this
// module: only the names do, and never a credential or anything that looks generated.
import { PROSE_FILE } from '../align/identifiers.js';
import { MAX_CODE_TERM_CHARS, MAX_CODE_TERMS } from '../brief/types.js';
import { lineIdentifiers, type CodeLines } from '../text/identifiers.js';
import { looksRandom } from '../text/secrets/randomness.js';
import { findSecretSpans } from '../text/secrets/scan.js';

/** Each side of an edit is read up to this many characters: a Write of a generated file is not read whole. */
const MAX_CODE_CHARS = 64_000;

const text = (x: unknown): string => (typeof x === 'string' ? x : '');

/**
 * The edit's removed and added lines: Claude Code's Edit (`old_string`/`new_string`), MultiEdit
 * (`edits[]`), Write (`content`) and NotebookEdit (`new_source`); Gemini's replace and write_file
 * (the same fields); Codex's apply_patch text (`command`: its `-` and `+` lines, and the
 * definitions its `@@` lines name).
 */
export function editLines(input: Record<string, unknown>): CodeLines {
  const lines: CodeLines = { added: [], removed: [], contexts: [] };
  const edits = Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [];
  const removed = [text(input.old_string), ...edits.map((e) => text(e?.old_string))].join('\n');
  const added = [text(input.new_string), text(input.content), text(input.new_source), ...edits.map((e) => text(e?.new_string))].join('\n');
  lines.removed.push(...withoutSecrets(removed).split('\n'));
  lines.added.push(...withoutSecrets(added).split('\n'));
  const patch = withoutSecrets(text(input.command));
  for (const line of patch.split(/\r?\n/)) {
    if (line.startsWith('*** ')) continue;
    if (line.startsWith('@@')) lines.contexts.push(line.replace(/^@@ ?/, ''));
    else if (line.startsWith('+')) lines.added.push(line.slice(1));
    else if (line.startsWith('-')) lines.removed.push(line.slice(1));
  }
  return lines;
}

/** The text, cut to MAX_CODE_CHARS, with every credential the scanner finds blanked out. */
function withoutSecrets(code: string): string {
  const cut = code.slice(0, MAX_CODE_CHARS);
  let out = '';
  let at = 0;
  for (const s of findSecretSpans(cut)) {
    out += `${cut.slice(at, s.start)}${' '.repeat(s.end - s.start)}`;
    at = s.end;
  }
  return out + cut.slice(at);
}

/** The runs of letters a name is made of: computeLimitFor0 → compute, Limit, For. */
const letterRuns = (name: string) => name.split(/(?=[A-Z][a-z])|[^A-Za-z]+/).filter(Boolean);

/**
 * A long identifier as varied as a random draw (a hash, a key someone pasted) is no name a doc
 * uses. Words are not random: a name whose letter runs average four letters or more is kept
 * (computeLimitFor0 is varied enough to pass for random on entropy alone).
 */
const generated = (name: string) => {
  if (name.length < 16 || !looksRandom(name, { lettersAndDigits: true })) return false;
  const runs = letterRuns(name);
  return runs.reduce((n, r) => n + r.length, 0) / Math.max(1, runs.length) < 4;
};

/**
 * The edit's most telling identifiers (src/text/identifiers.ts): by weight, then by how often the
 * code uses them, one of each numbered family (`limit0`, `limit1`… say the same thing, and no doc
 * names them). In a prose file only names of several words, since a capitalised word starts every
 * sentence there.
 */
export function codeTerms(path: string | undefined, lines: CodeLines, limit = MAX_CODE_TERMS): string[] {
  const prose = path !== undefined && PROSE_FILE.test(path);
  const families = new Set<string>();
  return lineIdentifiers(lines, Infinity, prose)
    .sort((a, b) => b.weight - a.weight || b.count - a.count || a.name.localeCompare(b.name))
    .filter((i) => {
      const family = i.name.replace(/\d+$/, '');
      if (families.has(family)) return false;
      families.add(family);
      return i.name.length <= MAX_CODE_TERM_CHARS && !generated(i.name);
    })
    .map((i) => i.name)
    .slice(0, limit);
}
