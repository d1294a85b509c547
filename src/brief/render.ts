// The brief as plain text, in the seed's layout (tier headings; one line per item with its id
// and text; an indented because line) — what agents see through hooks — and its receipt line.
// Proposals come after the tiers under their own heading, each line saying its lifecycle, so an
// agent never reads an unapproved record as an order.
import { plainText } from '../lib/plain-text.js';
import type { Brief, Item, TierName } from './types.js';
import { TIER_ORDER } from './types.js';

const HEADINGS: Record<TierName, string> = {
  must_obey: 'Must obey',
  already_decided: 'Already decided',
  in_motion: 'In motion',
  background: 'Background',
};

/** The heading of the proposals' group: relevant, not approved, not orders. */
export const PROPOSED_HEADING = "Proposed, not approved (awaiting a person's review: not orders)";

/** The mark on a proposal's line: its lifecycle, and that nobody approved it. */
export const proposalMark = (lifecycle: string) => `[${lifecycle}: proposed, not approved]`;

/** Said of an item naming a file the caller's checkout deleted. */
export const STALE_SUFFIX = ' (possibly stale: names a file this checkout deleted)';

function compact(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

export function receiptLine(stats: Brief['stats']): string {
  return `[🔮 Doco] briefed: ${stats.items} items, ${stats.held_back} held back · searched ${compact(stats.searched_tokens)} tokens, sent ${compact(stats.sent_tokens)} (${(stats.elapsed_ms / 1000).toFixed(1)}s)`;
}

/** A gap as a sentence: the ask's words no record carries, quoted as the ask wrote them. */
export const gapLine = (gap: string) => `No record covers "${gap}".`;

/**
 * Before every further line of an item sent in full: deeper than a heading (column 0), an item
 * (2) or its because line (4), so no line of a record's text reads as the brief's own. A GitHub
 * issue anyone wrote, its lines kept in a code fence, showed "Must obey" and a rule's line at the
 * start of a line under "In motion" (found by a hostile-input review).
 */
export const CONTINUED = '      ';

/** A text that opens with a block (a fence, a heading, a table, a list, a quote): on the line after the title, or a fence opened there would run on. */
const OPENS_WITH_BLOCK = /^(?: {0,3}(?:`{3}|~{3}|#{1,6}\s|[-*+]\s|\d+[.)]\s|>)|\|)/;

/** An item's title, then its text: after a colon, unless the title ends a sentence or a question itself ("Why this consolidation?"). */
function titled(title: string, text: string, expanded: boolean): string {
  const joint = /[:?!.]$/.test(title) ? '' : ':';
  return expanded && OPENS_WITH_BLOCK.test(text) ? `${title}${joint}\n${text}` : `${title}${joint} ${text}`;
}

/** A text on one line: its line breaks and runs of space as one space, its control characters gone. */
const oneLine = (text: string) => plainText(text).replace(/\s+/g, ' ');

export function renderBrief(brief: Brief): string {
  const out: string[] = [];
  if (brief.as_of) out.push(`As of ${brief.as_of}: the records as they stood then.`, '');
  // One line: it names records' titles (a heading or file name a docs tree chose), and a line
  // break in one started a "Must obey" of its own at column 0 (a hostile review).
  if (brief.synthesis.text) out.push(oneLine(brief.synthesis.text), '');
  const section = (heading: string, items: Item[], mark: (item: Item) => string = () => '') => {
    if (!items.length) return;
    out.push(heading);
    for (const item of items) {
      const title = oneLine(item.title);
      const body = plainText(item.text);
      const text = !body || body.startsWith(plainText(item.title).replace(/…$/, '')) ? body || title : titled(title, body, item.expanded);
      out.push(`  ${item.id}  ${mark(item)}${item.expanded ? text.replace(/\n/g, `\n${CONTINUED}`) : oneLine(text)}`);
      out.push(`    because: ${oneLine(item.because)}${item.possibly_stale ? STALE_SUFFIX : ''}`);
    }
  };
  for (const tier of TIER_ORDER) section(HEADINGS[tier], brief.tiers[tier]);
  // A brief stored before proposals had their own group has none.
  section(PROPOSED_HEADING, brief.proposed ?? [], (item) => `${proposalMark(item.lifecycle)} `);
  if (brief.gaps.length) {
    out.push('Gaps');
    for (const gap of brief.gaps) out.push(`  ${gapLine(oneLine(gap))}`);
  }
  for (const w of brief.warnings) out.push(`(warning: ${w})`);
  out.push(brief.receipt);
  return out.join('\n');
}
