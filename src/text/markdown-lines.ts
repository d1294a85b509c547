// The Markdown line lexer: which lines of a text are front matter, fenced code (and its fences),
// ATX headings or plain text, for the doc ingester, `doco lint-docs` and docs packs alike.
// Fences follow CommonMark; lists, block quotes and indented code are not read, as sections
// are cut at headings and only fences (and front matter) can hide one.

export type LineKind = 'text' | 'heading' | 'fence-open' | 'fence-close' | 'code' | 'front-matter';

export interface MarkdownHeading {
  /** 0-based index of the heading's line. */
  line: number;
  level: 1 | 2 | 3 | 4 | 5 | 6;
  /** Trimmed, its closing #s dropped; never empty. */
  text: string;
}

export interface MarkdownLines {
  /** The text cut at \n, \r\n and \r. */
  lines: string[];
  /** One per line. */
  kinds: LineKind[];
  /** Every heading outside code and front matter, in order. */
  headings: MarkdownHeading[];
  /** The fence that closes one the text leaves open (the opener's character and length), else undefined. */
  unclosedFence: string | undefined;
}

export interface LexOptions {
  /** Read a leading `---` … `---` block as front matter. Off, its lines are lexed like any. */
  frontMatter?: boolean;
}

/** Fences and their contents: what prose rules (sections, masks, MDX's ESM lines) skip. */
export const isCode = (kind: LineKind) => kind === 'code' || kind === 'fence-open' || kind === 'fence-close';

// Up to 3 spaces, 1–6 #s, a space or tab, then the rest (headingText reads it). `##` alone and
// `## ` are text, as the ingester has always read them: an empty heading only names an empty section.
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*)$/;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const BACKTICK = 96;
const TILDE = 126;

const isBlank = (c: number) => c === SPACE || c === TAB;

/** The length of the run of `char` at `from`. */
function runOf(line: string, from: number, char: number): number {
  let end = from;
  while (line.charCodeAt(end) === char) end++;
  return end - from;
}

/** Whether nothing but spaces and tabs follows `from`. */
function blankFrom(line: string, from: number): boolean {
  for (let i = from; i < line.length; i++) if (!isBlank(line.charCodeAt(i))) return false;
  return true;
}

/**
 * A heading's text from what follows its #s and their spaces: trailing spaces and tabs dropped,
 * then a closing run of #s after a space or tab (`## Setup ##`), then trimmed. Written out
 * rather than as a lazy regex, which backtracks at every character of every heading.
 */
function headingText(rest: string): string {
  let end = rest.length;
  while (end > 0 && isBlank(rest.charCodeAt(end - 1))) end--;
  let hashes = end;
  while (hashes > 0 && rest.charCodeAt(hashes - 1) === HASH) hashes--;
  if (hashes < end && hashes > 0 && isBlank(rest.charCodeAt(hashes - 1))) end = hashes;
  return rest.slice(0, end).trim();
}

/** The index of the first line after a leading front-matter block, 0 when there is none (or it never closes). */
function frontMatterEnd(lines: string[]): number {
  if (lines[0]?.trim() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) if (lines[i]!.trim() === '---') return i + 1;
  return 0;
}

/**
 * Classifies every line. A fence is a run of 3 or more ` or ~ under at most 3 spaces of
 * indent (a backtick fence's info string holding no backtick); it is closed only by a run of
 * the same character at least as long with nothing but spaces or tabs after it, else it runs
 * to the end of the text. Headings are ATX headings outside fences.
 */
export function lexMarkdownLines(text: string, options: LexOptions = {}): MarkdownLines {
  const lines = (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).split('\n');
  const kinds: LineKind[] = new Array(lines.length);
  const headings: MarkdownHeading[] = [];
  const start = options.frontMatter ? frontMatterEnd(lines) : 0;
  kinds.fill('front-matter', 0, start);
  let fenceChar = 0; // the open fence's character code, 0 outside a fence
  let fenceLength = 0;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    let at = 0;
    while (at < 4 && line.charCodeAt(at) === SPACE) at++;
    const c = at < 4 ? line.charCodeAt(at) : 0;
    let kind: LineKind = 'text';
    if (fenceChar) {
      const run = c === fenceChar ? runOf(line, at, c) : 0;
      if (run >= fenceLength && blankFrom(line, at + run)) {
        fenceChar = 0;
        kind = 'fence-close';
      } else kind = 'code';
    } else if (c === BACKTICK || c === TILDE) {
      const run = runOf(line, at, c);
      if (run >= 3 && !(c === BACKTICK && line.includes('`', at + run))) {
        fenceChar = c;
        fenceLength = run;
        kind = 'fence-open';
      }
    } else if (c === HASH) {
      const m = HEADING.exec(line);
      const heading = m ? headingText(m[2]!) : '';
      if (heading) {
        headings.push({ line: i, level: m![1]!.length as MarkdownHeading['level'], text: heading });
        kind = 'heading';
      }
    }
    kinds[i] = kind;
  }
  const unclosedFence = fenceChar ? String.fromCharCode(fenceChar).repeat(fenceLength) : undefined;
  return { lines, kinds, headings, unclosedFence };
}
