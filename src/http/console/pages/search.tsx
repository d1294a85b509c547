// GET /search: hybrid search of the workspace, filtered by type, collection and shape; the hits
// and scores of GET /api/v1/search (searchRecords), so nothing under its floor is listed.
import { Hono } from 'hono';
import * as v from 'valibot';
import { NODE_TYPES } from '../../../db/schema.js';
import { listCollections } from '../../../graph/collections.js';
import { RECORD_SHAPES } from '../../../graph/record-shapes.js';
import { parseInput } from '../../../lib/validate.js';
import { searchRecords, SearchQuerySchema, type SearchDeps } from '../../../retrieval/search.js';
import type { Item } from '../../../retrieval/item.js';
import { newestOfType } from '../data/search.js';
import type { ConsoleEnv } from '../env.js';
import { sendPage } from '../render.js';
import { requireSession } from '../session.js';
import { Page } from '../views/layout.js';
import { Box, Empty, Lifecycle, RecordLink, TypePill } from '../views/ui.js';

/** Empty filter fields (a form sends them all) mean "any". */
const present = (q: Record<string, string>) => Object.fromEntries(Object.entries(q).filter(([, val]) => val.trim() !== ''));

function Result({ item }: { item: Item }) {
  return (
    <div class="item">
      <div class="meta">
        <RecordLink id={item.id} title={item.title || item.id} />
        <TypePill value={item.node_type} />
        {item.lifecycle !== 'active' ? <Lifecycle value={item.lifecycle} /> : null}
        <span class="small">
          in <code>{item.collection}</code>
        </span>
        <span class="small">score {item.score}</span>
      </div>
      <p class="prose small" style="margin:4px 0">
        {item.text}
      </p>
      <div class="because">{item.because}</div>
    </div>
  );
}

export function searchPage(deps: SearchDeps) {
  const app = new Hono<ConsoleEnv>();
  app.get('/search', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const session = c.get('session');
    const raw = present(c.req.query());
    const collections = await listCollections(deps.db, session.workspaceId);
    // A filter alone (a type from the overview) lists the newest of that type.
    const query = raw.q ? parseInput(SearchQuerySchema, { limit: '25', ...raw }, 'search') : undefined;
    if (!query) parseInput(v.partial(SearchQuerySchema), raw, 'search');
    const results = query ? (await searchRecords(deps, session.workspaceId, query)).results : undefined;
    const latest = !query && raw.type ? await newestOfType(deps.sql, session.workspaceId, raw.type) : [];
    return sendPage(
      c,
      <Page title={query ? `Search: ${query.q}` : 'Search'} section="/search" session={session} csrf={c.get('csrf')}>
        <div class="page-head">
          <h1>Search</h1>
        </div>
        <form method="get" action="/search" role="search" class="box box-body" style="margin-bottom:16px">
          <div class="fields">
            <div class="field" style="grid-column: span 2">
              <label for="q">Query</label>
              <input id="q" name="q" type="search" value={raw.q ?? ''} placeholder="refund approval" autofocus />
            </div>
            <div class="field">
              <label for="type">Type</label>
              <select id="type" name="type">
                <option value="">any</option>
                {NODE_TYPES.map((t) => (
                  <option value={t} selected={raw.type === t}>
                    {t}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="collection">Collection</label>
              <select id="collection" name="collection">
                <option value="">any</option>
                {collections.map((col) => (
                  <option value={col.slug} selected={raw.collection === col.slug}>
                    {col.slug}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="shape">Shape</label>
              <select id="shape" name="shape">
                <option value="">any</option>
                {RECORD_SHAPES.map((s) => (
                  <option value={s} selected={raw.shape === s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <button class="primary" type="submit">
                Search
              </button>
            </div>
          </div>
        </form>
        {results ? (
          <Box title={`${results.length} result${results.length === 1 ? '' : 's'}`} id="results" flush>
            {results.length ? results.map((item) => <Result item={item} />) : <Empty>Nothing matched well.</Empty>}
          </Box>
        ) : latest.length ? (
          <Box title={`Newest ${raw.type} records`} id="results" flush>
            {latest.map((r) => (
              <div class="item">
                <div class="meta">
                  <RecordLink id={r.id} title={r.title || r.id} />
                  <Lifecycle value={r.lifecycle} />
                  <span class="small">
                    in <code>{r.collection}</code>
                  </span>
                </div>
              </div>
            ))}
          </Box>
        ) : (
          <p class="muted">Type a query; the filters narrow it.</p>
        )}
      </Page>,
    );
  });
  return app;
}
