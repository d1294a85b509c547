// A page's content: its block children, every page of them (start_cursor/has_more), recursing
// wherever has_children is true. Sub-pages and inline databases are pages of their own, so their
// content is not read here. Bounded, so one enormous page cannot stall a tick.
import { pageCursors } from '../page-cursors.js';
import type { NotionClient } from './client.js';
import type { NotionBlock } from './types.js';

export const MAX_BLOCKS = 5_000;
export const MAX_DEPTH = 8;
const NOT_DESCENDED = new Set(['child_page', 'child_database']);

export async function pageBlocks(client: NotionClient, pageId: string): Promise<NotionBlock[]> {
  const budget = { left: MAX_BLOCKS };
  return childrenOf(client, pageId, 0, budget);
}

async function childrenOf(client: NotionClient, blockId: string, depth: number, budget: { left: number }): Promise<NotionBlock[]> {
  const blocks: NotionBlock[] = [];
  let cursor: string | undefined;
  const cursors = pageCursors(`notion block ${blockId} children`);
  do {
    const page = await client.children(blockId, cursor);
    blocks.push(...page.results.slice(0, Math.max(0, budget.left)));
    budget.left -= page.results.length;
    cursor = page.has_more && page.next_cursor ? cursors.next(page.next_cursor) : undefined;
  } while (cursor && budget.left > 0);
  for (const b of blocks) {
    if (b.has_children && !NOT_DESCENDED.has(b.type) && depth + 1 < MAX_DEPTH && budget.left > 0)
      b.children = await childrenOf(client, b.id, depth + 1, budget);
  }
  return blocks;
}
