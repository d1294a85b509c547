// GET /docs: doc-ingest runs with their counts and outcomes (a refused reap as the alarm it is),
// the manifest by path, and, for one path, each section and the record it became.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { Sql } from '../../../db/connect.js';
import { parseInput } from '../../../lib/validate.js';
import { manifestPaths, manifestSections, type ManifestSection } from '../data/docs.js';
import { recentIngestRuns } from '../data/overview.js';
import type { ConsoleEnv } from '../env.js';
import { sendPage } from '../render.js';
import { requireSession } from '../session.js';
import { Page, PageHead } from '../views/layout.js';
import { Box, clip, Empty, Lifecycle, RecordLink, Time } from '../views/ui.js';
import { RunOutcome } from '../views/run-outcome.js';

const DocsQuerySchema = v.object({
  path: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(1000, 'must be at most 1000 characters'))),
});

export function docsPages(deps: { sql: Sql }) {
  const app = new Hono<ConsoleEnv>();
  app.get('/docs', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const session = c.get('session');
    const ws = session.workspaceId;
    const { path } = parseInput(DocsQuerySchema, c.req.query(), 'docs query');
    const [runs, paths, sections] = await Promise.all([
      recentIngestRuns(deps.sql, ws, 20),
      manifestPaths(deps.sql, ws),
      path ? manifestSections(deps.sql, ws, path) : Promise.resolve([] as ManifestSection[]),
    ]);
    return sendPage(
      c,
      <Page title="Docs" section="/docs" session={session} csrf={c.get('csrf')}>
        <PageHead title="Docs">
          Ingested documentation: each <code>##</code>/<code>###</code> section is one record.
        </PageHead>
        <div class="stack">
          <Box title="Ingest runs" id="runs" flush>
            {runs.length ? (
              <table>
                <thead>
                  <tr>
                    <th scope="col">run</th>
                    <th scope="col">started</th>
                    <th scope="col">source</th>
                    <th scope="col" class="num">
                      files
                    </th>
                    <th scope="col" class="num">
                      created
                    </th>
                    <th scope="col" class="num">
                      updated
                    </th>
                    <th scope="col" class="num">
                      skipped
                    </th>
                    <th scope="col">outcome</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((r) => (
                    <tr>
                      <td>
                        <code>{r.id}</code>
                      </td>
                      <td class="nowrap">
                        <Time d={r.started_at} />
                      </td>
                      <td>
                        <code>{r.source}</code>
                        {r.root ? <div class="small muted">{clip(r.root, 60)}</div> : null}
                      </td>
                      <td class="num">{r.files ?? '–'}</td>
                      <td class="num">{r.created ?? '–'}</td>
                      <td class="num">{r.updated ?? '–'}</td>
                      <td class="num">{r.skipped ?? '–'}</td>
                      <td>
                        <RunOutcome run={r} /> {r.reap_count ? <span class="small muted">{r.reap_count} reaped</span> : null}
                        {r.reap_outcome === 'refused' ? (
                          <div class="alarm small" role="alert" style="margin-top:4px">
                            Reap refused: {r.reap_reason ?? 'no reason recorded'}
                          </div>
                        ) : null}
                        {r.error ? <div class="bad-text small">{clip(r.error, 300)}</div> : null}
                        {r.unreadable?.length ? <div class="small muted">unreadable: {r.unreadable.join(', ')}</div> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty>No ingest runs yet: `doco ingest-docs` or the worker's cron runs one.</Empty>
            )}
          </Box>
          <div class="cols">
            <Box title={path ? `Sections of ${path}` : 'Sections'} id="sections" flush>
              {!path ? (
                <Empty>Choose a path to see its sections.</Empty>
              ) : sections.length ? (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">section</th>
                      <th scope="col">record</th>
                      <th scope="col">updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {sections.map((s) => (
                      <tr>
                        <td>
                          <code class="small">{s.section_key}</code>
                          <div class="hash">{s.hash.slice(0, 16)}…</div>
                        </td>
                        <td>
                          <RecordLink id={s.node_id} title={s.title} />{' '}
                          {s.lifecycle && s.lifecycle !== 'active' ? <Lifecycle value={s.lifecycle} /> : null}
                        </td>
                        <td class="small nowrap">
                          <Time d={s.updated_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <Empty>No section of this workspace's manifest has that path.</Empty>
              )}
            </Box>
            <Box title={`Manifest (${paths.length} path${paths.length === 1 ? '' : 's'})`} id="manifest" flush>
              {paths.length ? (
                <table class="tree">
                  <tbody>
                    {paths.map((p) => (
                      <tr>
                        <td>
                          <a href={`/docs?path=${encodeURIComponent(p.path)}#sections`} aria-current={p.path === path ? 'true' : undefined}>
                            {p.path}
                          </a>
                          {p.source !== 'fs' ? <span class="small muted"> ({p.source})</span> : null}
                        </td>
                        <td class="num small">{p.sections}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <Empty>Nothing ingested yet.</Empty>
              )}
            </Box>
          </div>
        </div>
      </Page>,
    );
  });
  return app;
}
