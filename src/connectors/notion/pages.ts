// Reading pages, and knowing when not to. Notion rounds last_edited_time down to the minute, so
// an equal value proves nothing new only if our read began after that minute was over (plus a
// margin for the two clocks): otherwise a later edit in the same minute could hide behind it.
import type { Sql } from '../../db/connect.js';
import { emptyReport, retireItem, writeItems, type ItemContent, type ItemScope, type ItemsReport } from '../items.js';
import type { KnownItem } from '../scope.js';
import { pageBlocks } from './blocks.js';
import type { NotionClient } from './client.js';
import { isGone, notionId, pageRecord } from './records.js';
import type { NotionPage } from './types.js';

const MINUTE_MS = 60_000;
/** How far our clock may run ahead of Notion's without an edit being missed. */
export const CLOCK_MARGIN_MS = 30_000;

/** True when the record holds this very edit, read after its minute ended: no need to read it again. */
export function upToDate(known: KnownItem | undefined, lastEdited: string): boolean {
  if (!known) return false;
  if (known.retired) return true; // retired for good: never read again
  const m = known.meta;
  if (m.last_edited_time !== lastEdited || typeof m.fetched_at !== 'string') return false;
  return Date.parse(m.fetched_at) >= Date.parse(lastEdited) + MINUTE_MS + CLOCK_MARGIN_MS;
}

/** The page with its content, as a record. */
export async function readPage(client: NotionClient, page: NotionPage, now: () => number): Promise<ItemContent> {
  const startedAt = now();
  return pageRecord(page, await pageBlocks(client, page.id), startedAt);
}

/** Writes the page as it is now, or retires it when Notion archived, trashed or lost it. */
export async function syncPage(
  sql: Sql,
  client: NotionClient,
  scope: ItemScope,
  pageId: string,
  known: KnownItem | undefined,
  summary: string,
  now: () => number,
): Promise<ItemsReport> {
  const page = await client.page(pageId);
  if (!page || isGone(page)) return retireItem(sql, scope, notionId(pageId), summary);
  if (upToDate(known, page.last_edited_time)) return emptyReport();
  return writeItems(sql, scope, [await readPage(client, page, now)], { summary });
}
