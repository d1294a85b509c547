// An architecture decision record's status as the file states it (docs/ingest.md, "An ADR's
// status"): the first line of its `Status` section that is neither a template's instructions (a
// block quote, an HTML comment, code) nor its placeholder ("{Deprecated|Proposed|Accepted}"),
// else a "Status: …" line before the first `##` (MADR's list), else front matter's `status:`.
// The brief reads it: a rejected, superseded or still proposed ADR never stands as an order
// (src/brief/tiers.ts).
import { isCode, type MarkdownLines } from '../../text/markdown-lines.js';

/** How much of the status line is kept: "Accepted (tracked in #123)" and no paragraph. */
export const STATUS_MAX_CHARS = 80;

const STATUS_HEADING = /^status$/i;
const STATUS_LINE = /^(?:[-*+]\s+)?(?:\*\*|__)?status(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.+)$/i;
const FRONT_MATTER_STATUS = /^status\s*:\s*(.+)$/i;

/** A line's words with their list marker, emphasis and quotes dropped; '' when nothing is left. */
function clean(line: string): string {
  const text = line
    .trim()
    .replace(/^[-*+]\s+/, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/^[*_]|[*_]$/g, '')
    .replace(/^["']|["']$/g, '')
    .trim();
  return text.slice(0, STATUS_MAX_CHARS).trim();
}

/**
 * Whether a line is a template's, not the record's: instructions quoted or commented, a
 * placeholder ("{Proposed|Accepted}", "Accepted | Rejected | Superseded by"), a bare link.
 * Linear in the line's length, whatever it holds: a docs pack is another service's text, and
 * the first form of this test took seconds on a line of 20,000 spaces or "](" pairs.
 */
const isTemplateLine = (line: string) => /^[ \t]*(?:>|<!--|\{|\[[^\]\n]*\]\([^)\n]*\)[ \t]*$|\w[\w ]*\|)/.test(line);

export function adrStatusOf({ lines, kinds, headings }: MarkdownLines): string | undefined {
  const at = headings.findIndex((h) => (h.level === 2 || h.level === 3) && STATUS_HEADING.test(h.text));
  if (at >= 0) {
    const end = headings[at + 1]?.line ?? lines.length;
    for (let i = headings[at]!.line + 1; i < end; i++) {
      if (isCode(kinds[i]!) || !lines[i]!.trim() || isTemplateLine(lines[i]!)) continue;
      const status = clean(lines[i]!);
      if (status) return status;
    }
  }
  const firstSection = headings.find((h) => h.level === 2)?.line ?? lines.length;
  for (let i = 0; i < firstSection; i++) {
    if (kinds[i] === 'front-matter') {
      const m = FRONT_MATTER_STATUS.exec(lines[i]!.trim());
      if (m && clean(m[1]!)) return clean(m[1]!);
    } else if (kinds[i] === 'text') {
      const m = STATUS_LINE.exec(lines[i]!.trim());
      if (m && clean(m[1]!)) return clean(m[1]!);
    }
  }
  return undefined;
}
