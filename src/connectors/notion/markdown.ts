// A Notion page's blocks as Markdown (docs/connectors.md, Notion): headings, lists and to-dos (nested
// items indented), code with its language, quotes and callouts, tables, dividers; toggles,
// columns and synced blocks flattened into the text around them; rich-text links kept as
// [text](href), so the touches index finds the paths and URLs they name. Media become links,
// except Notion-hosted files: their signed URLs change on every read and would make every
// fetch look like an edit, so only their caption or name is kept.
import type { NotionBlock, NotionRichText } from './types.js';

interface BlockContent {
  rich_text?: NotionRichText[];
  checked?: boolean;
  language?: string;
  caption?: NotionRichText[];
  url?: string;
  name?: string;
  title?: string;
  expression?: string;
  cells?: NotionRichText[][];
  icon?: { type?: string; emoji?: string };
  type?: string;
  external?: { url?: string };
}

const LIST_ITEMS = new Set(['bulleted_list_item', 'numbered_list_item', 'to_do']);
const MEDIA = new Set(['image', 'video', 'audio', 'file', 'pdf']);
const LINKS = new Set(['bookmark', 'embed', 'link_preview']);

/** Markdown markers go around the text, its outer spaces outside them ("** a**" is not bold). */
function wrap(text: string, marker: string): string {
  const m = text.match(/^(\s*)(.*?)(\s*)$/s)!;
  return m[2] ? `${m[1]}${marker}${m[2]}${marker}${m[3]}` : text;
}

export function richTextToMarkdown(items: NotionRichText[] | undefined): string {
  return (items ?? [])
    .map((t) => {
      const a = t.annotations ?? {};
      let text = t.plain_text ?? '';
      if (a.code) text = wrap(text, '`');
      if (a.bold) text = wrap(text, '**');
      if (a.italic) text = wrap(text, '_');
      if (a.strikethrough) text = wrap(text, '~~');
      return t.href ? `[${text}](${t.href})` : text;
    })
    .join('');
}

const plain = (items: NotionRichText[] | undefined) => (items ?? []).map((t) => t.plain_text ?? '').join('');
const contentOf = (b: NotionBlock) => (b[b.type] ?? {}) as BlockContent;
const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((l) => (l ? by + l : l))
    .join('\n');

function table(b: NotionBlock): string {
  const rows = (b.children ?? [])
    .filter((r) => r.type === 'table_row')
    .map(
      (r) => `| ${(contentOf(r).cells ?? []).map((c) => richTextToMarkdown(c).replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`,
    );
  if (!rows.length) return '';
  const columns = (contentOf(b.children![0]!).cells ?? []).length;
  return [rows[0], `|${' --- |'.repeat(columns)}`, ...rows.slice(1)].join('\n');
}

function media(b: NotionBlock, c: BlockContent): string {
  const label = plain(c.caption) || c.name || b.type;
  const external = c.type === 'external' ? c.external?.url : undefined;
  return external ? `[${label}](${external})` : `(${b.type}: ${label})`;
}

/** The block's own line(s), without its children; '' for a block that shows nothing. */
function ownText(b: NotionBlock, number: number): string {
  const c = contentOf(b);
  const text = richTextToMarkdown(c.rich_text);
  switch (b.type) {
    case 'paragraph':
    case 'toggle':
    case 'template':
      return text;
    case 'heading_1':
    case 'heading_2':
    case 'heading_3':
      return text ? `${'#'.repeat(Number(b.type.slice(-1)))} ${text}` : '';
    case 'bulleted_list_item':
      return `- ${text}`;
    case 'numbered_list_item':
      return `${number}. ${text}`;
    case 'to_do':
      return `- [${c.checked ? 'x' : ' '}] ${text}`;
    case 'quote':
      return text ? indent(text, '> ') : '';
    case 'callout':
      return text ? indent(`${c.icon?.emoji ? `${c.icon.emoji} ` : ''}${text}`, '> ') : '';
    case 'code':
      return `\`\`\`${c.language && c.language !== 'plain text' ? c.language : ''}\n${plain(c.rich_text)}\n\`\`\``;
    case 'divider':
      return '---';
    case 'equation':
      return c.expression ? `$$${c.expression}$$` : '';
    case 'table':
      return table(b);
    case 'child_page':
      return c.title ? `Sub-page: ${c.title}` : '';
    case 'child_database':
      return c.title ? `Database: ${c.title}` : '';
    default:
      if (MEDIA.has(b.type)) return media(b, c);
      if (LINKS.has(b.type) && c.url) return `[${plain(c.caption) || c.url}](${c.url})`;
      return '';
  }
}

/** Each block as one piece of Markdown, in order. */
function pieces(blocks: NotionBlock[]): { text: string; list: boolean }[] {
  const out: { text: string; list: boolean }[] = [];
  let number = 0;
  for (const b of blocks) {
    number = b.type === 'numbered_list_item' ? number + 1 : 0;
    const own = ownText(b, number);
    const children = b.type === 'table' ? [] : (b.children ?? []);
    if (LIST_ITEMS.has(b.type)) {
      const nested = children.length ? `\n${indent(blocksToMarkdown(children), '  ')}` : '';
      out.push({ text: own + nested, list: true });
      continue;
    }
    if (own) out.push({ text: own, list: false });
    // Toggles, columns, synced blocks and any other block with children: flattened, in place.
    if (children.length) out.push(...pieces(children));
  }
  return out;
}

/** The blocks (children already filled in) as Markdown: list items one per line, other blocks apart. */
export function blocksToMarkdown(blocks: NotionBlock[]): string {
  let md = '';
  let prevList = false;
  for (const p of pieces(blocks)) {
    if (md) md += p.list && prevList ? '\n' : '\n\n';
    md += p.text;
    prevList = p.list;
  }
  return md;
}
