// HTML that Markdown docs write inline where Markdown has no syntax: a line break inside a table
// cell or a diagram's label ("config<br/>(e.g. 80% token"), a subscript or superscript in a
// protocol's notation ("valset<sub>h+1</sub>", 187 of them in CometBFT's docs). Sent as markup,
// the agent read "*valset<sub>h+1</sub>*" where the docs show valset with h+1 below it: a break is
// a space, a subscript `_h` (`_{h+1}` when it is more than one word's characters), a superscript
// `^2` likewise, as plain-text mathematics writes them. Outside fenced code and code spans,
// where such markup is code; bounded, so unclosed markup costs time linear in the text.
import { replaceOutsideCodeSpans } from './code-spans.js';
import { outsideFences } from './fences.js';

/** A break, and the spaces around it on its line; at a line's end, nothing (the newline breaks). */
const BREAK = /[ \t]*<br[ \t]*\/?>[ \t]*(\n?)/gi;
const SCRIPT = /<(sub|sup)>([^<>\n]{1,40})<\/\1>/gi;

const scripted = (mark: '_' | '^', body: string) => (/^\w+$/.test(body) ? `${mark}${body}` : `${mark}{${body}}`);

function asText(prose: string): string {
  const broken = replaceOutsideCodeSpans(prose, BREAK, (m) => (m[1] ? '\n' : ' '));
  return replaceOutsideCodeSpans(broken, SCRIPT, (m) => scripted(m[1]!.toLowerCase() === 'sub' ? '_' : '^', m[2]!));
}

/** The text with inline line breaks as spaces and sub- and superscripts written as `_h` and `^2`. */
export function inlineHtmlAsText(text: string): string {
  if (!/<(?:br|sub|sup)\b/i.test(text)) return text;
  return outsideFences(text, asText);
}
