// GET / (the overview) and POST /verify (re-check every hash chain of the workspace).
import { Hono } from 'hono';
import type { Sql } from '../../../db/connect.js';
import type { ReadRoute, ReplicaStatus } from '../../../db/read-replica.js';
import type { HandshakeStatus } from '../../../connectors/notion/handshake.js';
import { readOverview, type IngestRun, type Overview, type TypeCounts } from '../data/overview.js';
import { runChainCheck } from '../data/chain.js';
import type { ConsoleEnv } from '../env.js';
import { readForm } from '../form.js';
import { sendPage } from '../render.js';
import { checkCsrf, requireSession } from '../session.js';
import { BriefsTable } from '../views/briefs-table.js';
import { RunOutcome } from '../views/run-outcome.js';
import { Page, PageHead } from '../views/layout.js';
import { Box, clip, CsrfField, Empty, Lifecycle, Mark, Pill, RecordLink, Stat, Time, TypePill } from '../views/ui.js';

const LIFECYCLE_KEYS = ['drafting', 'queued', 'active', 'retired'] as const;

function Totals({ types }: { types: TypeCounts[] }) {
  const sum = (k: (typeof LIFECYCLE_KEYS)[number]) => types.reduce((n, t) => n + t[k], 0);
  const total = types.reduce((n, t) => n + t.total, 0);
  return (
    <>
      <div class="stats">
        <Stat value={total} label="records" />
        {LIFECYCLE_KEYS.map((k) => (
          <Stat value={sum(k)} label={k} />
        ))}
      </div>
      <div class="bar" role="img" aria-label={LIFECYCLE_KEYS.map((k) => `${sum(k)} ${k}`).join(', ')}>
        {LIFECYCLE_KEYS.map((k) => (total ? <i class={`b-${k}`} style={`width:${(100 * sum(k)) / total}%`}></i> : null))}
      </div>
    </>
  );
}

function ByType({ types }: { types: TypeCounts[] }) {
  if (!types.length) return <Empty>No records yet.</Empty>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">type</th>
          {LIFECYCLE_KEYS.map((k) => (
            <th scope="col" class="num">
              {k}
            </th>
          ))}
          <th scope="col" class="num">
            total
          </th>
        </tr>
      </thead>
      <tbody>
        {types.map((t) => (
          <tr>
            <td>
              <a href={`/search?type=${encodeURIComponent(t.node_type)}`}>{t.node_type}</a>
            </td>
            {LIFECYCLE_KEYS.map((k) => (
              <td class="num">{t[k] || <span class="faint">0</span>}</td>
            ))}
            <td class="num">{t.total}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** When a check ran, and where: the console's Re-verify (by whom) or `doco verify`. */
function CheckedBy({ chain }: { chain: NonNullable<Overview['chain']> }) {
  return chain.via === 'cli' ? (
    <>
      Checked <Time d={chain.checked_at} /> by <code>doco verify</code> (the whole database, {chain.elapsed_ms} ms).
    </>
  ) : (
    <>
      Checked <Time d={chain.checked_at} /> from the console{chain.principal ? ` by ${chain.principal}` : ''} in {chain.elapsed_ms} ms.
    </>
  );
}

function Chain({ chain, csrf }: { chain: Overview['chain']; csrf: string }) {
  return (
    <Box
      title="Hash chains"
      id="chain"
      actions={
        <form method="post" action="/verify" class="inline">
          <CsrfField token={csrf} />
          <button type="submit">Re-verify</button>
        </form>
      }
    >
      {!chain ? (
        <p class="muted">
          Not checked yet. Re-verify here, or <code>doco verify</code>, recomputes every version hash.
        </p>
      ) : chain.intact ? (
        <p>
          <strong class="ok-text">
            <Mark kind="ok" />
            Every chain verifies.
          </strong>{' '}
          <span class="muted">
            <CheckedBy chain={chain} />
          </span>
        </p>
      ) : (
        <div class="alarm" role="alert">
          <strong>
            <Mark kind="bad" />
            {chain.broken_links} broken link(s).
          </strong>{' '}
          First: <code>{chain.first_break}</code>
          <div class="small">
            <CheckedBy chain={chain} />
          </div>
        </div>
      )}
    </Box>
  );
}

function Runs({ runs }: { runs: IngestRun[] }) {
  const refused = runs.find((r) => r.reap_outcome === 'refused');
  return (
    <Box title="Doc ingest" id="ingest" actions={<a href="/docs">All runs →</a>}>
      {refused ? (
        <div class="alarm" role="alert" style="margin-bottom:10px">
          <strong>Reap refused</strong> (run {refused.id}, <Time d={refused.started_at} />
          ): {refused.reap_reason ?? 'no reason recorded'}
        </div>
      ) : null}
      {runs.length ? (
        <table>
          <tbody>
            {runs.map((r) => (
              <tr>
                <td class="nowrap">
                  <Time d={r.started_at} />
                </td>
                <td>
                  <code>{r.source}</code>
                </td>
                <td class="small muted">
                  +{r.created ?? 0} ~{r.updated ?? 0} ={r.skipped ?? 0}
                </td>
                <td>
                  <RunOutcome run={r} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No ingest runs yet.</p>
      )}
    </Box>
  );
}

/** DATABASE_READ_URL: where briefs and searches read, and how far the replica trails (docs/replica.md). */
function ReadReplica({ r }: { r: ReplicaStatus }) {
  const lag =
    r.standby === false
      ? 'not a standby: its lag cannot be measured'
      : r.lag_bytes === null
        ? 'lag unknown'
        : `${r.lag_bytes.toLocaleString('en')} bytes, ${r.lag_ms === null ? '?' : r.lag_ms.toLocaleString('en')} ms behind`;
  return (
    <Box title="Read replica" id="replica">
      {r.reading_from === 'replica' ? (
        <p>
          <strong class="ok-text">
            <Mark kind="ok" />
            Briefs and searches read from the replica
          </strong>{' '}
          <span class="muted">({lag}).</span>
        </p>
      ) : (
        <div class="alarm" role="alert">
          <strong>
            <Mark kind="bad" />
            Briefs and searches read from the primary:
          </strong>{' '}
          {r.state === 'down' ? 'the replica does not answer' : `the replica lags (${lag})`}, since <Time d={r.since} />.
        </div>
      )}
      <p class="muted small">
        Falls back past {r.max_lag_ms.toLocaleString('en')} ms of lag (DOCO_READ_MAX_LAG_MS); checked <Time d={r.checked_at} />.
      </p>
    </Box>
  );
}

function OverviewPage({ o, csrf }: { o: Overview; csrf: string }) {
  return (
    <>
      <div class="grid">
        <Box title="Records" id="records">
          <Totals types={o.types} />
          <p class="muted small">{o.changedThisWeek} changed in the last 7 days.</p>
          {o.pendingRelations ? (
            <p class="small">
              <a href="/review#relations">{o.pendingRelations} relation(s) waiting for review →</a>
            </p>
          ) : null}
        </Box>
        <Box title="Index outbox" id="outbox">
          <div class="stats">
            <Stat value={o.outbox.pending} label="waiting to be indexed" />
            <Stat value={o.outbox.failing} label="failing" />
          </div>
          {o.outbox.oldest ? (
            <p class="muted small">
              Oldest queued <Time d={o.outbox.oldest} />.
            </p>
          ) : (
            <p class="muted small">Nothing waiting: the index is up to date.</p>
          )}
          {o.outbox.last_error ? (
            <p class="alarm small">
              Last failure: <code>{clip(o.outbox.last_error, 300)}</code>
            </p>
          ) : null}
        </Box>
      </div>
      <div class="cols" style="margin-top:16px">
        <div class="stack">
          <Box title="By type" id="bytype" flush>
            <ByType types={o.types} />
          </Box>
          <Box title="Changed this week" id="week" flush actions={<a href="/review">Review queue →</a>}>
            {o.recent.length ? (
              <table>
                <tbody>
                  {o.recent.map((r) => (
                    <tr>
                      <td>
                        <RecordLink id={r.id} title={r.title} />
                      </td>
                      <td>
                        <TypePill value={r.node_type} />
                      </td>
                      <td>
                        <Lifecycle value={r.lifecycle} />
                      </td>
                      <td class="nowrap muted small">
                        v{r.version} · <Time d={r.updated_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty>Nothing changed in the last 7 days.</Empty>
            )}
          </Box>
          <Box title="Recent briefs" id="briefs" flush actions={<a href="/briefs">All briefs →</a>}>
            <BriefsTable briefs={o.briefs} compact />
          </Box>
        </div>
        <div class="stack">
          <Chain chain={o.chain} csrf={csrf} />
          {o.replica ? <ReadReplica r={o.replica} /> : null}
          <Runs runs={o.runs} />
          <Box title="Docs packs" id="packs">
            {o.packs.length ? (
              <ul class="small" style="margin:0;padding-left:18px">
                {o.packs.map((p) => (
                  <li>
                    <code>{p.code}</code> <span class="muted">{p.base_url}</span> · fetched <Time d={p.last_fetched_at} />
                    {p.last_error ? <div class="bad-text">{clip(p.last_error, 200)}</div> : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No docs packs registered.</p>
            )}
          </Box>
          <Box title="Connectors" id="connectors">
            {o.connectors.length ? (
              <ul class="small" style="margin:0;padding-left:18px">
                {o.connectors.map((k) => (
                  <li>
                    <strong>{k.kind}</strong> <code>{k.target || k.routing_key}</code>{' '}
                    <Pill kind={k.status === 'active' ? 'active' : 'drafting'}>{k.status}</Pill> · synced <Time d={k.last_sync_at} />
                    {k.webhook ? <Handshake id={k.id} w={k.webhook} /> : null}
                    {k.last_error ? <div class="bad-text">{clip(k.last_error, 200)}</div> : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No connectors configured.</p>
            )}
          </Box>
        </div>
      </div>
    </>
  );
}

/** A Notion connector's webhook handshake: its token for the person to paste into Notion, or what to do next. */
function Handshake({ id, w }: { id: string; w: HandshakeStatus }) {
  if (w.handshake === 'received')
    return w.verification_token ? (
      <div>
        webhook verification token (paste it into Notion's <em>Verify</em> dialog): <code>{w.verification_token}</code>
      </div>
    ) : (
      <div class="muted">webhook verification token received (a write session shows it)</div>
    );
  if (w.handshake === 'awaiting')
    return (
      <div class="muted">
        awaiting Notion's webhook handshake until <time datetime={w.until}>{w.until.slice(0, 16).replace('T', ' ')} UTC</time>
      </div>
    );
  return (
    <div class="muted">
      no webhook verification token: the handshake window closed <Time d={w.since} />; run <code>{`doco connector rearm ${id}`}</code>, then
      have Notion send the token again
    </div>
  );
}

export function overviewPage(deps: { sql: Sql; reads?: ReadRoute | undefined; home?: string | undefined }) {
  const app = new Hono<ConsoleEnv>();
  app.get('/', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const session = c.get('session');
    const o = await readOverview(deps.sql, session.workspaceId, { reveal: session.scope === 'write', replica: deps.reads?.status() });
    return sendPage(
      c,
      <Page title="Overview" section="/" session={session} csrf={c.get('csrf')}>
        <PageHead title="Overview">
          Workspace <code>{session.workspaceSlug}</code>
        </PageHead>
        <OverviewPage o={o} csrf={c.get('csrf')} />
      </Page>,
    );
  });
  app.post('/verify', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    checkCsrf(c, await readForm(c));
    const session = c.get('session');
    await runChainCheck(deps.sql, session.workspaceId, session.principalId, deps.home);
    return c.redirect('/#chain', 303);
  });
  return app;
}
