// The fenced code blocks of a text, read line by line as CommonMark reads them: a run of 3+
// backticks or tildes opens a block, a line holding only a run of the same character at least as
// long closes it, and a block never closed runs to the end of the text (most often the text was
// cut inside it: a brief reads at most 2,000 characters of a record). Indented any amount: a
// block inside a list item is indented with it ("1) Back it up:" and four spaces before its
// fence, as runbooks write them), or opened on the item's own line ("* ```bash"), its lines
// indented to the item's content: the marker counts as indentation. One pass over the lines: a
// regular expression that looked for each opening's closing fence from every line that could
// open one took time quadratic in the text for a text of openings never closed (1.6 s for
// 100,000 characters of "```x" lines).

export interface FencedBlock {
  /** Where its opening line starts. */
  index: number;
  /** Where its closing line ends (before its newline); the text's end for a block never closed. */
  end: number;
  /** Where its first line of code starts. */
  bodyFrom: number;
  /** Where its closing line starts; `end` for a block never closed. */
  closingFrom: number;
  /** How far in its fence starts (spaces, tabs, a list item's marker): its lines lose up to that much. */
  indent: number;
  /** What follows the opening fence ("js"), trimmed. */
  info: string;
  /** Its lines of code, without the fences. */
  body: string;
  closed: boolean;
}

const OPENING = /^([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(`{3,}|~{3,})([^\n]*)$/;

export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { index: number; indent: number; info: string; bodyFrom: number; closing: RegExp } | undefined;
  for (let pos = 0; pos <= text.length;) {
    const newline = text.indexOf('\n', pos);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(pos, lineEnd);
    if (!open) {
      const m = OPENING.exec(line);
      if (m) {
        const fence = m[2]!;
        open = {
          index: pos,
          indent: m[1]!.length,
          info: m[3]!.trim(),
          bodyFrom: lineEnd + 1,
          closing: new RegExp(`^[ \\t]*${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t\\r]*$`),
        };
      }
    } else if (open.closing.test(line)) {
      const { closing: _, ...opened } = open;
      blocks.push({
        ...opened,
        end: lineEnd,
        closingFrom: pos,
        body: text.slice(open.bodyFrom, Math.max(open.bodyFrom, pos - 1)),
        closed: true,
      });
      open = undefined;
    }
    if (newline < 0) break;
    pos = newline + 1;
  }
  if (open) {
    const { closing: _, ...opened } = open;
    const bodyFrom = Math.min(open.bodyFrom, text.length);
    blocks.push({ ...opened, bodyFrom, end: text.length, closingFrom: text.length, body: text.slice(bodyFrom), closed: false });
  }
  return blocks;
}

/** The text with `rewrite` applied to each stretch outside its fenced blocks; the blocks as they are. */
export function outsideFences(text: string, rewrite: (prose: string) => string): string {
  let out = '';
  let from = 0;
  for (const block of fencedBlocks(text)) {
    out += rewrite(text.slice(from, block.index)) + text.slice(block.index, block.end);
    from = block.end;
  }
  return out + rewrite(text.slice(from));
}
