// An image in Markdown ("![Architecture](/images/blocks-storage/architecture.png)", a badge
// "[![CI](…/badge.svg)](…/actions)", an HTML <img src=… alt=…>) is a picture the agent cannot
// see: its address is noise in the text it reads, its alt text is what it shows. Sent as
// "[image: Architecture]" (or left out when it has no alt text), outside fenced code, where such
// a line is code.
import { outsideFences } from './fences.js';

// Alt text and addresses are bounded: each try reads at most ~2,000 characters, so markup that
// never closes costs time linear in the text, not quadratic.
/** A link whose whole text is an image (a badge): the link goes with its image. */
const LINKED_IMAGE = /\[!\[([^\]\n]{0,300})\]\([^)\n]{0,800}\)\]\([^)\n]{0,800}\)/g;
const IMAGE = /!\[([^\]\n]{0,300})\]\([^)\n]{0,800}\)/g;
const HTML_IMAGE = /<img\b[^>\n]{0,1500}>/gi;
const ALT = /\balt\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)')/i;

const shown = (alt: string | undefined) => {
  const text = (alt ?? '').replace(/\s+/g, ' ').trim();
  return text ? `[image: ${text}]` : '';
};

export function imagesAsAltText(text: string): string {
  if (!text.includes('![') && !/<img\b/i.test(text)) return text;
  return outsideFences(text, (prose) =>
    prose
      .replace(LINKED_IMAGE, (_, alt: string) => shown(alt))
      .replace(IMAGE, (_, alt: string) => shown(alt))
      .replace(HTML_IMAGE, (tag) => {
        const m = ALT.exec(tag);
        return shown(m?.[1] ?? m?.[2]);
      }),
  );
}
