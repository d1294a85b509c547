// The text of an item as the agent reads it, cut to its share: prose on one line, and a cut
// that ends where a sentence does when one ends late enough (else at a word, marked "…").
// Fenced code keeps its lines in an item sent in full — flattened, "```js import x … ```" read as
// prose — and is one "[code]" in a one-line item, where its lines could not be read anyway. A
// fence never closed runs to the end of the text, as CommonMark reads it: most often the text was
// cut inside the block (a brief reads at most 2,000 characters of a record), so it is marked cut.
// A Markdown table keeps its rows as lines too ("| Field | Type | |---|---| | id | text |" on one
// line reads as noise), and is one "[table]" in a one-line item; a heading line stays a line, and
// so does each list item in an item sent in full. A heading with nothing but headings under it
// (a section whose content was images) is left out.
import { fencedBlocks, outsideFences } from './fences.js';
import { NOT_A_SENTENCE_STOP } from './sentence-stops.js';
import { flattenWhitespace } from './whitespace.js';
import { cutText } from '../../lib/well-formed.js';

/** A cut ends at a sentence only this far in (of its share) or further: else it ends at a word. */
const SENTENCE_CUT_FROM = 0.6;

/**
 * A Markdown table: a row of cells, its delimiter row (`|---|:--:|`), and the rows after it, each
 * line starting with a pipe.
 */
const TABLE = /^[ \t]{0,3}\|[^\n]*\n[ \t]{0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*(?:\n[ \t]{0,3}\|[^\n]*)*/gm;

/** A line that could be a table's delimiter row: most texts hold none, and skip the fences' scan. */
const DELIMITER_ROW = /^[ \t]{0,3}\|?[ \t]*:?-+:?[ \t]*\|/m;

/** A delimiter row's cell as short as it can be written: its alignment colons and three dashes. */
const shortCell = (cell: string) => {
  const c = cell.trim();
  return `${c.startsWith(':') ? ':' : ''}---${c.endsWith(':') ? ':' : ''}`;
};

/**
 * The text with each table's delimiter row written short (`| --- | :---: |`): docs pad it to
 * their widest cell, and CometBFT's metrics table's ran to 290 dashes, so that with the header no
 * row fitted an item's share and the item read "[table]". Outside fenced code.
 */
export function withShortTableDelimiters(text: string): string {
  if (!DELIMITER_ROW.test(text)) return text;
  return outsideFences(text, (prose) =>
    prose.replace(TABLE, (table) => {
      const [header, delimiter, ...rows] = table.split('\n');
      const cells = delimiter!.trim().replace(/^\|/, '').replace(/\|$/, '').split('|');
      return [header, `${/^[ \t]*/.exec(delimiter!)![0]}| ${cells.map(shortCell).join(' | ')} |`, ...rows].join('\n');
    }),
  );
}

/** A heading line inside a section's prose (a level below the one the docs were split at). */
const HEADING = /^[ \t]{0,3}#{1,6}[ \t]+[^\n]*$/gm;

/**
 * The start of a list item's line (`- `, `* `, `+ `, `1. `, `1) `), at any depth: in an item sent in
 * full each starts a line ("- `p2p.send_rate` - `p2p.recv_rate`" run together reads as one).
 */
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?=\S)/gm;
/** A blank line: after a list, the paragraph it ends starts a line of its own. */
const BLANK_LINE = /\n[ \t]*\n/;

type Segment =
  | { kind: 'prose'; text: string; line?: true; startsLine?: true }
  | { kind: 'code'; info: string; body: string; unclosed?: true }
  | { kind: 'table'; rows: string[] };

/** Prose with each list item, and the paragraph after a list, starting a line. */
function withListItems(text: string, out: Segment[]): void {
  let from = 0;
  const item = (end: number) => {
    // The item runs to the next item, or to a blank line: what follows that is a paragraph of its own.
    const chunk = text.slice(from, end);
    const blank = BLANK_LINE.exec(chunk);
    if (!blank) return out.push({ kind: 'prose', text: chunk, startsLine: true });
    out.push({ kind: 'prose', text: chunk.slice(0, blank.index), startsLine: true });
    out.push({ kind: 'prose', text: chunk.slice(blank.index), startsLine: true });
  };
  let inItem = false;
  for (const m of text.matchAll(LIST_ITEM)) {
    if (m.index > from) {
      if (inItem) item(m.index);
      else out.push({ kind: 'prose', text: text.slice(from, m.index) });
    }
    from = m.index;
    inItem = true;
  }
  if (from < text.length) {
    if (inItem) item(text.length);
    else out.push({ kind: 'prose', text: text.slice(from) });
  }
}

/** Prose with its heading lines as prose of their own line ("#### Head Path" run into the sentence after it reads as one). */
function withHeadings(text: string, out: Segment[]): void {
  let from = 0;
  for (const m of text.matchAll(HEADING)) {
    if (m.index > from) withListItems(text.slice(from, m.index), out);
    out.push({ kind: 'prose', text: m[0], line: true });
    from = m.index + m[0].length;
  }
  if (from < text.length) withListItems(text.slice(from), out);
}

/** Prose with its tables taken out as segments of their own, and its heading lines kept as lines. */
function withTables(text: string, out: Segment[]): void {
  let from = 0;
  for (const m of text.matchAll(TABLE)) {
    if (m.index > from) withHeadings(text.slice(from, m.index), out);
    out.push({ kind: 'table', rows: m[0].split('\n').map((row) => flattenWhitespace(row)) });
    from = m.index + m[0].length;
  }
  if (from < text.length) withHeadings(text.slice(from), out);
}

/** A block's lines without the indentation its fence had (at most that much), as CommonMark reads them. */
const dedent = (body: string, indent: number) => (indent ? body.replace(new RegExp(`^[ \\t]{0,${indent}}`, 'gm'), '') : body);

const headingLevel = (p: Segment) => (p.kind === 'prose' && p.line ? /#+/.exec(p.text)![0].length : 0);
const saysNothing = (p: Segment) => p.kind === 'prose' && !p.line && !p.text.trim();

/**
 * The segments less the headings nothing but headings follow up to one of their level or above,
 * or the end: a section whose images were its content ("#### Send:", "##### Top 3 Percent:" and
 * nothing under either) or one the brief's read of a record cut off. Walked from the end, so a
 * heading whose subsections all went goes too. A text of headings alone keeps them.
 */
function withoutEmptyHeadings(parts: Segment[]): Segment[] {
  const kept: Segment[] = [];
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    const level = headingLevel(p);
    if (level) {
      // `kept` runs backwards: the segment after this one is its last that says something.
      let j = kept.length - 1;
      while (j >= 0 && saysNothing(kept[j]!)) j--;
      const next = kept[j];
      if (!next || (headingLevel(next) > 0 && headingLevel(next) <= level)) continue;
    }
    kept.push(p);
  }
  // A text that is nothing but headings says what they say.
  return kept.some((k) => !headingLevel(k) && !saysNothing(k)) ? kept.reverse() : parts;
}

function segments(text: string): Segment[] {
  const out: Segment[] = [];
  let from = 0;
  for (const block of fencedBlocks(text)) {
    if (block.index > from) withTables(text.slice(from, block.index), out);
    const body = dedent(block.body, block.indent).replace(/\s+$/, '');
    out.push({ kind: 'code', info: block.info, body, ...(block.closed ? {} : { unclosed: true as const }) });
    from = block.end;
  }
  if (from < text.length) withTables(text.slice(from), out);
  return withoutEmptyHeadings(out);
}

/**
 * `text` from `at` to `end` as it reads in place: a slice starting inside a fenced code block is
 * given the block's opening fence line, one inside a table the table's header and delimiter rows,
 * and it then starts at the line's beginning (its first code line keeps its indentation); one
 * starting on a closing fence starts after it. Else the slice as it is.
 */
export function sliceInPlace(text: string, at: number, end: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  for (const block of fencedBlocks(text)) {
    if (block.index >= at) break;
    if (at >= block.end) continue;
    if (at < block.bodyFrom) return text.slice(block.index, end);
    if (block.closed && at >= block.closingFrom) return text.slice(block.end, end);
    return `${text.slice(block.index, block.bodyFrom)}${text.slice(lineStart, end)}`;
  }
  for (const m of text.matchAll(TABLE)) {
    if (m.index >= at) break;
    if (at >= m.index + m[0].length) continue;
    const headerEnd = m.index + m[0].split('\n', 2).join('\n').length + 1;
    return at < headerEnd ? text.slice(m.index, end) : `${text.slice(m.index, headerEnd)}${text.slice(lineStart, end)}`;
  }
  return text.slice(at, end);
}

/** The Markdown table `at` lies in, after its header and delimiter rows: where those end and where it ends. */
export function tableBodyAt(text: string, at: number): { bodyFrom: number; end: number } | undefined {
  for (const m of text.matchAll(TABLE)) {
    if (m.index > at) return undefined;
    const end = m.index + m[0].length;
    const bodyFrom = m.index + m[0].split('\n', 2).join('\n').length + 1;
    if (at >= bodyFrom && at < end) return { bodyFrom, end };
  }
  return undefined;
}

/**
 * A sentence's end: its stop (and a closing quote or bracket) before a space and a capital, digit,
 * quote or a list item's bullet (lists are flattened into the prose), or at the text's end.
 */
const SENTENCE_END = new RegExp(
  `${NOT_A_SENTENCE_STOP}[.!?][)"'’”]?(?=\\s+(?:[\\p{Lu}\\p{N}"'\`“‘(]|[-*+•]\\s))|${NOT_A_SENTENCE_STOP}[.!?][)"'’”]?$`,
  'gu',
);

/** Where the last sentence of `text` ends, or -1. */
function lastSentenceEnd(text: string): number {
  let end = -1;
  for (const m of text.matchAll(SENTENCE_END)) end = m.index + m[0].length;
  return end;
}

/** Prose cut to `max` characters: whole when it fits, else to its last sentence end or word, marked "…". */
export function clipProse(text: string, max: number): string {
  const flat = flattenWhitespace(text, max);
  if (flat.length <= max) return flat;
  const cut = cutText(flat, max - 1);
  const sentence = lastSentenceEnd(cut);
  if (sentence >= max * SENTENCE_CUT_FROM) return `${cut.slice(0, sentence)} …`;
  return `${cutText(cut, Math.floor(Math.max(cut.lastIndexOf(' '), max * SENTENCE_CUT_FROM)))}…`;
}

/** Room under which prose after a block or a line is cut only at a sentence end. */
const CONTINUATION_MIN = 80;

/**
 * Prose after a block, a table or a line, cut to `room`: as clipProse cuts it when the room says
 * something, else its sentences that fit, or "…" alone rather than a word or two ("``` W…").
 */
function continuation(prose: string, room: number): string {
  if (room >= CONTINUATION_MIN) return clipProse(prose, room);
  const sentence = lastSentenceEnd(prose.slice(0, room - 2));
  return sentence > 0 ? `${prose.slice(0, sentence)} …` : '…';
}

/** Whether a text may hold code or a table: the rest is prose, cut without looking for either. */
export const hasShape = (text: string) =>
  text.includes('```') || text.includes('~~~') || /(?:^|\n)(?:[ \t]{0,3}[|#]|[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t])/.test(text);

/**
 * The plain cut: whitespace collapsed, cut at a word. The budget decides what fits by this cut,
 * and the shaped text (excerpt) is sent in its place when it is no longer: so the shape never
 * changes which items are sent. Measured: letting the shaped length decide moved the 1,500-token
 * briefs' figures by a target either way (docs/eval.md).
 */
export function plainCut(text: string, max: number): string {
  const flat = flattenWhitespace(text, max);
  if (flat.length <= max) return flat;
  const cut = cutText(flat, max - 1);
  return `${cutText(cut, Math.floor(Math.max(cut.lastIndexOf(' '), max * SENTENCE_CUT_FROM)))}…`;
}

/** The most of a table's header a one-line item names; the rest of its columns are "…". */
const HEADER_CHARS = 60;

/** A table's header cells, on one line: "Field | Value | Rationale" (up to HEADER_CHARS). */
function headerCells(header: string): string {
  const cells = header
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim())
    .filter(Boolean);
  let out = '';
  for (const cell of cells) {
    const next = out ? `${out} | ${cell}` : cell;
    if (next.length > HEADER_CHARS) return out ? `${out} | …` : `${cell.slice(0, HEADER_CHARS - 1)}…`;
    out = next;
  }
  return out;
}

/**
 * A segment as a one-line item says it: code as a word, a table as its header's cells ("[table:
 * Field | Value | Rationale]": a section that is all one table read "[table]"), a heading
 * inside the prose as its words and a dash ("… an alternative approach. Current state — As of
 * today…"), not the "####" that ran into the sentence after it.
 */
function onOneLine(p: Segment): string {
  if (p.kind === 'table') {
    const header = headerCells(p.rows[0] ?? '');
    return header ? ` [table: ${header}] ` : ' [table] ';
  }
  if (p.kind !== 'prose') return ` [${p.kind}] `;
  return p.line ? ` ${p.text.replace(/^[ \t]*#{1,6}[ \t]+/, '').trim()} — ` : p.text;
}

/** The most of a block's first line a one-line item shows when the block is all its text. */
const GLIMPSE_CHARS = 60;

/**
 * A one-line item whose text is one code block and nothing else read "Configuring Allowed Limits:
 * [code]": its language and first line say what it holds ("[yaml: `api_allowed_limits:` …]").
 */
function onlyCode(parts: Segment[]): string | undefined {
  const said = parts.filter((p) => p.kind !== 'prose' || p.text.trim());
  const block = said[0];
  if (said.length !== 1 || block?.kind !== 'code') return undefined;
  const first = block.body
    .split('\n')
    .find((l) => l.trim())
    ?.trim();
  if (!first) return undefined;
  const shown = first.length > GLIMPSE_CHARS ? `${first.slice(0, GLIMPSE_CHARS - 1)}…` : first;
  const more = block.body.trim() !== first || shown !== first ? ' …' : '';
  return `[${block.info.trim().split(/\s/)[0] || 'code'}: \`${shown}\`${more}]`;
}

/** An item's text in at most `max` characters (about: a closing fence may pass it by a few). */
export function excerpt(text: string, max: number, expanded: boolean): string {
  if (!hasShape(text)) return clipProse(text, max);
  const parts = segments(text);
  if (!expanded) return clipProse(onlyCode(parts) ?? parts.map(onOneLine).join(''), max);
  let out = '';
  for (const p of parts) {
    const room = max - out.length;
    if (room <= 0) break;
    // A line, table or block starts a line of its own: after a newline, but not at the start,
    // where the newline would be trimmed off after taking a character of the room, nor after a
    // line already ended (two headings in a row are two lines, not three).
    const nl = out && !out.endsWith('\n') ? '\n' : '';
    if (p.kind === 'table') {
      const whole = `${nl}${p.rows.join('\n')}\n`;
      if (whole.length <= room) {
        out += whole;
        continue;
      }
      // The rows that fit (the header and its delimiter at least), and a word that the rest was cut.
      const rows: string[] = [];
      let used = '\n\n… table cut'.length;
      for (const row of p.rows) {
        if (used + row.length + 1 > room) break;
        rows.push(row);
        used += row.length + 1;
      }
      out += rows.length > 2 ? `${nl}${rows.join('\n')}\n… table cut` : ' [table]';
      break;
    }
    if (p.kind === 'prose') {
      const prose = flattenWhitespace(p.text);
      if (!prose) continue;
      if (p.line) {
        if (nl.length + prose.length + 1 > room) break;
        out += `${nl}${prose}\n`;
        continue;
      }
      const piece = prose.length <= room ? prose : out ? continuation(prose, room) : clipProse(prose, room);
      out += !out || out.endsWith('\n') ? piece : p.startsLine ? `\n${piece}` : ` ${piece}`;
      if (piece !== prose) break;
      continue;
    }
    const block = `${nl}\`\`\`${p.info}\n${p.body}\n\`\`\`\n${p.unclosed ? '… code cut' : ''}`;
    if (block.length <= room) {
      out += block;
      continue;
    }
    // The lines that fit, the fence closed after them.
    const lines: string[] = [];
    let used = `${nl}\`\`\`${p.info}\n\n\`\`\`\n… code cut`.length;
    for (const line of p.body.split('\n')) {
      if (used + line.length + 1 > room) break;
      lines.push(line);
      used += line.length + 1;
    }
    out += lines.length ? `${nl}\`\`\`${p.info}\n${lines.join('\n')}\n\`\`\`\n… code cut` : ' [code]';
    break;
  }
  return out.trim();
}

/**
 * A document's intro holds its `# Title` line, which is the item's title too (docs/ingest.md): the
 * opening sent starts after it rather than saying the title twice ("State Sync: # State Sync
 * With block sync…"). A text that is only that line stays as it is.
 */
export function withoutTitleLine(text: string, title: string): string {
  const m = /^ {0,3}#[ \t]+([^\n]*?)(?:[ \t]+#+)?[ \t]*\n\s*(?=\S)/.exec(text);
  return m && m[1]!.trim() === title.trim() ? text.slice(m[0].length) : text;
}
