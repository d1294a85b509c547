// A record's text as an agent (or a model's synthesis) reads it: what rendered docs do not show
// left out (HTML comments, link reference definitions), images as their alt text, links as their
// text, inline line breaks and sub- and superscripts as plain text, tables' delimiter rows short.
// Each candidate a brief places is read this way, ~50 a brief, most of them candidates of a brief
// a moment before; remembered by record version (as text-terms.ts keys terms), so a busy
// workspace's texts are not rewritten brief after brief.
import { RecentMap } from '../../lib/recent-map.js';
import { withShortTableDelimiters } from './excerpt.js';
import { withoutHtmlComments } from './html-comments.js';
import { imagesAsAltText } from './image-links.js';
import { inlineHtmlAsText } from './inline-html.js';
import { linksAsTheirText } from './inline-links.js';
import { withoutLinkDefinitions } from './link-definitions.js';

/** Texts remembered: a text left as it was costs an entry, not a copy. */
const READABLE_REMEMBERED = 4096;
const remembered = new RecentMap<string, string | typeof UNCHANGED>(READABLE_REMEMBERED);
const UNCHANGED = Symbol('unchanged');

const rewrite = (prose: string, keepLinks?: RegExp) =>
  withShortTableDelimiters(
    inlineHtmlAsText(linksAsTheirText(imagesAsAltText(withoutLinkDefinitions(withoutHtmlComments(prose))), keepLinks)),
  );

/** `prose` as an agent reads it. `key` names this text and no other (text-terms.ts `versionKey`). */
export function readableText(prose: string, key?: string): string {
  if (key === undefined) return rewrite(prose);
  const hit = remembered.get(key);
  if (hit !== undefined) return hit === UNCHANGED ? prose : hit;
  const out = rewrite(prose);
  remembered.set(key, out === prose ? UNCHANGED : out);
  return out;
}

/**
 * The readable text of a record there for what `anchor` finds (a path the work touches): when
 * only a link's address names it, that link keeps its address, so the item shows why it is there.
 */
export function readableTextNaming(prose: string, key: string, anchor: RegExp | undefined): string {
  const readable = readableText(prose, key);
  return anchor && !anchor.test(readable) && anchor.test(prose) ? rewrite(prose, anchor) : readable;
}

/**
 * A record whose text is all what an agent does not read (an RFC's "References": link reference
 * definitions) but which is there for what one of them names: the lines naming it, so the item
 * shows why it is there rather than its title alone.
 */
export const namingLines = (prose: string, anchor: RegExp | undefined): string =>
  anchor && prose.trim()
    ? prose
        .split('\n')
        .filter((line) => anchor.test(line))
        .join('\n')
    : '';
