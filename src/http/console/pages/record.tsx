// GET /records/:id: the record now, its links in and out, its versions (the newest hundred, or
// those before ?before=N) with a diff to the one before, hash and prev_hash, whether its chain
// verifies, and the briefs that served it.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { Db, Sql } from '../../../db/connect.js';
import type { NodeVersionView } from '../../../graph/read-nodes.js';
import { RecordIdSchema, VersionNumberSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import { readRecord, type RecordPage } from '../data/record.js';
import { diffWords } from '../diff.js';
import type { ConsoleEnv } from '../env.js';
import { sendPage } from '../render.js';
import { requireSession } from '../session.js';
import { BodyFields, fieldText } from '../views/body-fields.js';
import { Diff } from '../views/diff.js';
import { Page } from '../views/layout.js';
import { InlineCode } from '../views/source.js';
import { Box, clip, Empty, Lifecycle, Mark, RecordLink, Time, TypePill } from '../views/ui.js';

type Version = RecordPage['versions'][number];

function VersionChanges({ v, prev }: { v: Version; prev: NodeVersionView | undefined }) {
  if (!prev) return <Diff parts={diffWords('', v.prose)} label={`version ${v.version} text`} />;
  const keys = [...new Set([...Object.keys(prev.body ?? {}), ...Object.keys(v.body ?? {})])].filter((k) => k !== 'title' && k !== 'prose');
  const changedKeys = keys.filter((k) => fieldText(prev.body?.[k] ?? '') !== fieldText(v.body?.[k] ?? ''));
  const same = prev.title === v.title && prev.prose === v.prose && !changedKeys.length && prev.collection === v.collection;
  return (
    <>
      {prev.lifecycle !== v.lifecycle ? (
        <p class="small">
          Lifecycle <Lifecycle value={prev.lifecycle} /> → <Lifecycle value={v.lifecycle} />
        </p>
      ) : null}
      {prev.collection !== v.collection ? (
        <p class="small">
          Moved from <code>{prev.collection}</code> to <code>{v.collection}</code>
        </p>
      ) : null}
      {prev.title !== v.title ? (
        <div style="margin-bottom:6px">
          <div class="small muted">title</div>
          <Diff parts={diffWords(prev.title, v.title)} label={`version ${v.version} title changes`} />
        </div>
      ) : null}
      {prev.prose !== v.prose ? (
        <div style="margin-bottom:6px">
          <div class="small muted">text</div>
          <Diff parts={diffWords(prev.prose, v.prose)} label={`version ${v.version} text changes`} />
        </div>
      ) : null}
      {changedKeys.map((k) => (
        <div style="margin-bottom:6px">
          <div class="small muted">body.{k}</div>
          <Diff
            parts={diffWords(fieldText(prev.body?.[k] ?? ''), fieldText(v.body?.[k] ?? ''))}
            label={`version ${v.version} ${k} changes`}
          />
        </div>
      ))}
      {same && prev.lifecycle === v.lifecycle ? <p class="small muted">No change to the content.</p> : null}
    </>
  );
}

function History({ r, broken }: { r: RecordPage; broken: Set<number> }) {
  const { versions, version_count: count } = r;
  const first = versions[0]?.version;
  const last = versions.at(-1)?.version;
  const shown = versions.length === count ? '' : first === undefined ? ', none shown' : `, v${first}–v${last} shown`;
  return (
    <Box title={`History (${count} version${count === 1 ? '' : 's'}${shown})`} id="history" flush>
      {last !== undefined && last < count ? (
        <p class="small" style="margin:8px 12px">
          <a href={`/records/${r.node.id}#history`}>Newest versions</a>
        </p>
      ) : null}
      {[...versions].reverse().map((v) => {
        const prev = versions.find((p) => p.version === v.version - 1) ?? (r.previous?.version === v.version - 1 ? r.previous : undefined);
        return (
          <div class="version" id={`v${v.version}`}>
            <div class="version-head">
              <strong>v{v.version}</strong>
              <Lifecycle value={v.lifecycle} />
              <span class="small muted">
                <Time d={v.recorded_at} /> · via <code>{v.source}</code>
                {v.actor ? ` by ${v.actor}` : ''} · <code>{v.changeset_id}</code>
              </span>
              {broken.has(v.version) ? <span class="pill pill-block">chain broken here</span> : null}
            </div>
            <VersionChanges v={v} prev={prev} />
            <div class="hash" style="margin-top:6px">
              hash <span>{v.hash}</span>
              <br />
              prev_hash <span>{v.prev_hash ?? '(none: first version)'}</span>
            </div>
          </div>
        );
      })}
      {r.before !== null ? (
        <p class="small" style="margin:8px 12px">
          <a href={`/records/${r.node.id}?before=${r.before}#history`}>Older versions (before v{r.before})</a>
        </p>
      ) : null}
    </Box>
  );
}

function Links({ r }: { r: RecordPage }) {
  const out = r.edges.filter((e) => e.direction === 'out');
  const inn = r.edges.filter((e) => e.direction === 'in');
  const list = (edges: RecordPage['edges'], arrow: string) =>
    edges.length ? (
      <ul style="margin:0;padding-left:18px">
        {edges.map((e) => (
          <li>
            <code>{e.edge_type}</code> {arrow} <RecordLink id={e.other} title={e.other_title} />{' '}
            {e.lifecycle !== 'active' ? <Lifecycle value={e.lifecycle} /> : null}
          </li>
        ))}
      </ul>
    ) : (
      <p class="muted small">none</p>
    );
  return (
    <Box title="Links" id="links">
      {r.edge_count > r.edges.length ? (
        <p class="small muted">
          The first {r.edges.length} of {r.edge_count} links, in the order they were made (GET /api/v1/nodes/{r.node.id}?edges_after=… reads
          the rest).
        </p>
      ) : null}
      <h3>Out</h3>
      {list(out, '→')}
      <h3 style="margin-top:10px">In</h3>
      {list(inn, '←')}
    </Box>
  );
}

function RecordView({ r }: { r: RecordPage }) {
  const n = r.node;
  const broken = new Set(r.chain.map((c) => c.version));
  return (
    <>
      <div class="page-head">
        <div>
          <div class="meta" style="margin-bottom:6px">
            <TypePill value={n.node_type} />
            <Lifecycle value={n.lifecycle} />
            <span>
              in <code>{n.collection}</code>
            </span>
            <code>{n.id}</code>
          </div>
          <h1>
            <InlineCode text={n.title || n.id} />
          </h1>
          <p class="sub">
            v{n.version} · updated <Time d={n.updated_at} /> · created <Time d={n.created_at} />
            {r.author ? ` · by ${r.author}` : ''}
          </p>
        </div>
      </div>
      <div class="cols">
        <div class="stack">
          <Box title="Current text" id="text">
            {n.prose ? <p class="prose">{n.prose}</p> : <p class="muted">(no text)</p>}
            <BodyFields body={n.body} full />
          </Box>
          <History r={r} broken={broken} />
        </div>
        <div class="stack">
          <Box title="Chain" id="chain">
            {r.chain.length ? (
              <div class="alarm" role="alert">
                <strong>
                  <Mark kind="bad" />
                  This record's chain does not verify.
                </strong>
                <ul class="small">
                  {r.chain.map((c) => (
                    <li>
                      v{c.version}: {c.problem}
                    </li>
                  ))}
                </ul>
              </div>
            ) : (
              <p>
                <strong class="ok-text">
                  <Mark kind="ok" />
                  Chain verifies
                </strong>{' '}
                <span class="muted small">({r.version_count} version hashes recomputed now)</span>
              </p>
            )}
            <div class="hash">
              hash {n.hash}
              <br />
              prev_hash {n.prev_hash ?? '(none)'}
            </div>
          </Box>
          <Links r={r} />
          <Box title="Briefs that served it" id="served">
            {r.briefs.length ? (
              <ul style="margin:0;padding-left:18px" class="small">
                {r.briefs.map((b) => (
                  <li>
                    <a href={`/briefs/${b.id}`}>{clip(b.about, 80)}</a>{' '}
                    <span class="muted">
                      {b.principal ?? ''} · <Time d={b.created_at} />
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <Empty>No stored brief has sent it yet.</Empty>
            )}
          </Box>
          <Box title="Touches" id="touches">
            {r.touches.length ? (
              <ul style="margin:0;padding-left:18px" class="small">
                {r.touches.map((t) => (
                  <li>
                    <span class="muted">{t.kind}</span> <code>{t.value}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted small">It names no path, URL, record or issue.</p>
            )}
          </Box>
        </div>
      </div>
    </>
  );
}

export function recordPage(deps: { db: Db; sql: Sql }) {
  const app = new Hono<ConsoleEnv>();
  app.get('/records/:id', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const { id, before } = parseInput(
      v.object({ id: RecordIdSchema, before: v.optional(VersionNumberSchema) }),
      { id: c.req.param('id'), before: c.req.query('before') },
      'the address',
    );
    const session = c.get('session');
    const r = await readRecord(deps, session.workspaceId, id, before === undefined ? {} : { before });
    return sendPage(
      c,
      <Page title={(r.node.title || r.node.id).replace(/`([^`]+)`/g, '$1')} session={session} csrf={c.get('csrf')}>
        <RecordView r={r} />
      </Page>,
    );
  });
  return app;
}
