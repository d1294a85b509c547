// The paced minute tick (docs/connectors.md, Notion): search pages by last_edited_time, newest first,
// down to the cursor. Search cannot filter by time and the field is rounded to the minute, so
// the cursor's own minute is read again every tick and deduplicated by page id and edited time:
// a page's content is read only when its last_edited_time moved (or its last read may not have
// seen the whole minute). The cursor moves once every page down to it has committed; after the
// first sync a tick costs one search request when nothing changed.
import { addReports, emptyReport, retireItem, writeItems, type ItemContent, type ItemsReport } from '../items.js';
import type { ConnectorDeps, SweepReport } from '../kind.js';
import { pageCursors } from '../page-cursors.js';
import { knownItems } from '../scope.js';
import { readState, type ConnectorRow } from '../store.js';
import { readPage, upToDate } from './pages.js';
import { isGone, notionId } from './records.js';
import { notionScope, requireNotion } from './scope.js';

const later = (a: string | undefined, b: string) => (!a || Date.parse(b) > Date.parse(a) ? b : a);

export async function sweepNotion(deps: ConnectorDeps, connector: ConnectorRow, now: () => number = Date.now): Promise<SweepReport> {
  const client = requireNotion(deps);
  const scope = await notionScope(deps, connector);
  const state = await readState(deps.sql, connector.id);
  const since = typeof state.search_since === 'string' ? state.search_since : undefined;
  const summary = 'notion tick';
  let report: ItemsReport = emptyReport();
  let notRead = 0;
  let cursor = since;
  let start: string | undefined;
  const cursors = pageCursors('notion search');
  for (;;) {
    const page = await client.search(start);
    const pages = page.results.filter((p) => p.object === 'page');
    const fresh = since ? pages.filter((p) => Date.parse(p.last_edited_time) >= Date.parse(since)) : pages;
    const done = fresh.length < pages.length || !page.has_more || !page.next_cursor;
    const known = await knownItems(
      deps,
      scope,
      fresh.map((p) => notionId(p.id)),
    );
    const records: ItemContent[] = [];
    for (const p of fresh) {
      cursor = later(cursor, p.last_edited_time);
      const id = notionId(p.id);
      if (isGone(p)) report = addReports(report, await retireItem(deps.sql, scope, id, summary));
      else if (upToDate(known.get(id), p.last_edited_time)) notRead++;
      else records.push(await readPage(client, p, now));
    }
    // Newest first: the cursor may move only once every page down to it has committed.
    const moved = done && cursor !== undefined && cursor !== since;
    if (records.length || moved)
      report = addReports(
        report,
        await writeItems(deps.sql, scope, records, { summary, ...(moved ? { state: { search_since: cursor } } : {}) }),
      );
    if (done) break;
    start = cursors.next(page.next_cursor!);
  }
  return { items: report, notModified: notRead };
}
