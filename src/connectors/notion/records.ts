// A Notion page as the record it becomes (docs/connectors.md): title = its title property, prose = a line
// naming its URL, then its blocks as Markdown; body.source_kind = "notion" with the pointer
// {page_id, url, parent}. The routing facts kept beside it (meta) say which edit was read and
// when, so a tick re-reads content only when last_edited_time moved.
import type { RecordShape } from '../../graph/record-shapes.js';
import type { ItemContent } from '../items.js';
import { blocksToMarkdown } from './markdown.js';
import type { NotionBlock, NotionPage, NotionParent } from './types.js';

/** Notion ids are UUIDs, written with or without dashes: the dashed lowercase form is the one we keep. */
export function notionId(id: string): string {
  const hex = id.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex)
    ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
    : id;
}

export function pageTitle(page: NotionPage): string {
  const title = Object.values(page.properties ?? {}).find((p) => p.type === 'title');
  return (
    (title?.title ?? [])
      .map((t) => t.plain_text ?? '')
      .join('')
      .trim() || 'Untitled'
  );
}

/** {type, id} of the page's parent: a database, data source, page, block, or the workspace. */
export function parentOf(parent: NotionParent | undefined): { type: string; id: string | null } {
  if (!parent) return { type: 'unknown', id: null };
  const id = parent[parent.type];
  return { type: parent.type.replace(/_id$/, ''), id: typeof id === 'string' ? id : null };
}

export const isGone = (page: NotionPage) => page.archived === true || page.in_trash === true;

/** `fetchedAt`: when the content read began (epoch ms), kept to know whether it saw the whole edited minute. */
export function pageRecord(page: NotionPage, blocks: NotionBlock[], fetchedAt: number): ItemContent {
  const markdown = blocksToMarkdown(blocks);
  return {
    externalId: notionId(page.id),
    title: pageTitle(page),
    prose: [`Notion page ${page.url}`, markdown].filter(Boolean).join('\n\n'),
    body: {
      source_kind: 'notion',
      shape: 'notionPage' satisfies RecordShape,
      pointer: { page_id: notionId(page.id), url: page.url, parent: parentOf(page.parent) },
    },
    meta: { last_edited_time: page.last_edited_time, fetched_at: new Date(fetchedAt).toISOString() },
    remoteUpdatedAt: page.last_edited_time,
  };
}
