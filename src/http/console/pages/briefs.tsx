// GET /briefs (stored briefs, and the "try a brief" form), POST /briefs (compose one as the
// signed-in principal, then show it), GET /briefs/:id (one brief as composed: its tiers,
// then the relevant proposals in a group of their own, each marked with its lifecycle; and who
// asked, a person or an agent).
import { Hono } from 'hono';
import * as v from 'valibot';
import { composeBrief, type BriefDeps } from '../../../brief/compose.js';
import { PROPOSED_HEADING, renderBrief } from '../../../brief/render.js';
import { getStoredBrief } from '../../../brief/stored.js';
import { BriefRequestSchema, TIER_ORDER, type Brief, type Item, type TierName } from '../../../brief/types.js';
import { RecordIdSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import { briefAsker, type BriefAsker } from '../data/briefs.js';
import { recentBriefs } from '../data/overview.js';
import type { ConsoleEnv } from '../env.js';
import { readForm } from '../form.js';
import { sendPage } from '../render.js';
import { checkCsrf, requireSession } from '../session.js';
import { BriefsTable } from '../views/briefs-table.js';
import { Page, PageHead } from '../views/layout.js';
import { Box, clip, CsrfField, Empty, EmojiFree, Lifecycle, RecordLink, Time, TypePill } from '../views/ui.js';

const BriefIdSchema = v.pipe(v.string(), v.regex(/^brief_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a brief id such as brief_01K…'));
const HEADINGS: Record<TierName, string> = {
  must_obey: 'Must obey',
  already_decided: 'Already decided',
  in_motion: 'In motion',
  background: 'Background',
};
const isRecordId = (id: string) => v.is(RecordIdSchema, id);

function TryForm({
  csrf,
  about = '',
  touching = '',
  budget = '4000',
}: {
  csrf: string;
  about?: string;
  touching?: string;
  budget?: string;
}) {
  return (
    <form method="post" action="/briefs">
      <CsrfField token={csrf} />
      <div class="field">
        <label for="about">About</label>
        <textarea id="about" name="about" required rows={3} placeholder="Add partial refunds to the billing page">
          {about}
        </textarea>
      </div>
      <div class="field">
        <label for="touching">
          Touching <span class="hint">one path, URL or #issue per line</span>
        </label>
        <textarea id="touching" name="touching" rows={2} placeholder="app/routes/billing.tsx">
          {touching}
        </textarea>
      </div>
      <div class="fields">
        <div class="field">
          <label for="budget">
            Budget <span class="hint">tokens</span>
          </label>
          <input id="budget" name="budget" type="number" min="200" max="100000" value={budget} />
        </div>
        <div class="field">
          <button class="primary" type="submit">
            Run brief
          </button>
        </div>
      </div>
    </form>
  );
}

function ItemRow({ item }: { item: Item }) {
  return (
    <div class="item">
      <div class="meta">
        {isRecordId(item.id) ? <RecordLink id={item.id} title={item.title} /> : <strong>{item.title}</strong>}
        <TypePill value={item.node_type} />
        {item.lifecycle !== 'active' ? <Lifecycle value={item.lifecycle} /> : null}
        <code class="small">{item.id}</code>
        <span class="small">score {item.score}</span>
        {item.source.kind !== 'record' ? <span class="small">source {item.source.kind}</span> : null}
        {item.expanded ? null : <span class="small">one line</span>}
      </div>
      <p class="prose small" style="margin:4px 0">
        {item.text}
      </p>
      <div class="because">{item.because}</div>
    </div>
  );
}

function BriefView({ brief, created, asker }: { brief: Brief; created: Date; asker: BriefAsker | null }) {
  const cites = new Set(brief.synthesis.cites);
  // Relevant proposals, apart from the tiers as the agent saw them (a brief stored before the group has none).
  const proposed = brief.proposed ?? [];
  return (
    <>
      <div class="page-head">
        <div>
          <h1>{clip(brief.about, 140)}</h1>
          <p class="sub">
            <code>{brief.brief_id}</code> · <Time d={created} />{' '}
            {asker ? (
              <span id="asker">
                · asked by <strong>{asker.name}</strong> <span class="small">({asker.kind})</span>{' '}
              </span>
            ) : null}
            · budget {brief.budget} · since {brief.since}
            {brief.touching.length ? (
              <>
                {' '}
                · touching{' '}
                {brief.touching.map((t) => (
                  <code>{t} </code>
                ))}
              </>
            ) : null}
          </p>
        </div>
      </div>
      <div class="cols">
        <div class="stack">
          {brief.synthesis.text ? (
            <Box title="Synthesis" id="synthesis">
              <p class="synthesis">{brief.synthesis.text}</p>
              {cites.size ? (
                <p class="small muted" style="margin-top:6px">
                  cites{' '}
                  {[...cites].map((id) => (
                    <>{isRecordId(id) ? <RecordLink id={id} /> : <code>{id}</code>} </>
                  ))}
                </p>
              ) : null}
            </Box>
          ) : null}
          {TIER_ORDER.map((tier) => (
            <Box title={`${HEADINGS[tier]} (${brief.tiers[tier].length})`} id={`tier-${tier}`} flush>
              {brief.tiers[tier].length ? brief.tiers[tier].map((item) => <ItemRow item={item} />) : <Empty>Nothing in this tier.</Empty>}
            </Box>
          ))}
          <Box title={`${PROPOSED_HEADING} (${proposed.length})`} id="proposed" flush>
            {proposed.length ? proposed.map((item) => <ItemRow item={item} />) : <Empty>No proposal was relevant.</Empty>}
          </Box>
          <Box title="As the agent saw it" id="plain">
            <pre>{renderBrief(brief)}</pre>
          </Box>
        </div>
        <div class="stack">
          <Box title="Receipt" id="receipt">
            <p class="mono small">
              <EmojiFree text={brief.receipt} />
            </p>
            <dl class="kv small">
              <dt>candidates</dt>
              <dd>{brief.stats.candidates}</dd>
              <dt>items sent</dt>
              <dd>{brief.stats.items}</dd>
              <dt>held back</dt>
              <dd>{brief.stats.held_back}</dd>
              <dt>sent tokens</dt>
              <dd>{brief.stats.sent_tokens}</dd>
              <dt>elapsed</dt>
              <dd>{brief.stats.elapsed_ms} ms</dd>
            </dl>
          </Box>
          {brief.warnings.length ? (
            <Box title="Warnings" id="warnings">
              <ul class="small" style="margin:0;padding-left:18px">
                {brief.warnings.map((w) => (
                  <li>{w}</li>
                ))}
              </ul>
            </Box>
          ) : null}
          <Box title="Gaps" id="gaps">
            {brief.gaps.length ? (
              <ul class="small" style="margin:0;padding-left:18px">
                {brief.gaps.map((g) => (
                  <li>{g}</li>
                ))}
              </ul>
            ) : (
              <p class="muted small">Every part of the ask matched something.</p>
            )}
          </Box>
          {brief.timings ? (
            <Box title="Timings" id="timings" flush>
              <table class="timings">
                <tbody>
                  {Object.entries(brief.timings).map(([step, ms]) => (
                    <tr>
                      <td>{step.replace(/_/g, ' ')}</td>
                      <td class="num">{ms} ms</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Box>
          ) : null}
        </div>
      </div>
    </>
  );
}

/** The form's fields as a brief request: touching one per line, budget a whole number. */
function requestOf(form: Record<string, string | string[]>) {
  const text = (k: string) => (Array.isArray(form[k]) ? form[k][0] : form[k]) ?? '';
  const budget = text('budget').trim();
  return parseInput(
    BriefRequestSchema,
    {
      about: text('about'),
      touching: text('touching')
        .split(/\r?\n/)
        .map((s) => s.trim())
        .filter(Boolean),
      ...(budget ? { budget: /^\d+$/.test(budget) ? Number(budget) : budget } : {}),
    },
    'brief',
  );
}

export function briefPages(deps: BriefDeps) {
  const app = new Hono<ConsoleEnv>();

  app.get('/briefs', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const session = c.get('session');
    const briefs = await recentBriefs(deps.sql, session.workspaceId, 50);
    return sendPage(
      c,
      <Page title="Briefs" section="/briefs" session={session} csrf={c.get('csrf')}>
        <PageHead title="Briefs">What agents asked and were told, newest first; and a brief of your own.</PageHead>
        <div class="cols">
          <Box title="Stored briefs" id="stored" flush>
            <BriefsTable briefs={briefs} />
          </Box>
          <Box title="Try a brief" id="try">
            <TryForm csrf={c.get('csrf')} />
          </Box>
        </div>
      </Page>,
    );
  });

  app.post('/briefs', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form);
    const session = c.get('session');
    const brief = await composeBrief(deps, { workspaceId: session.workspaceId, principalId: session.principalId }, requestOf(form));
    return c.redirect(`/briefs/${brief.brief_id}`, 303);
  });

  app.get('/briefs/:id', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const id = parseInput(BriefIdSchema, c.req.param('id'), 'id');
    const session = c.get('session');
    const [stored, asker] = await Promise.all([
      getStoredBrief(deps.sql, session.workspaceId, id),
      briefAsker(deps.db, session.workspaceId, id),
    ]);
    return sendPage(
      c,
      <Page title={`Brief: ${clip(stored.brief.about, 60)}`} section="/briefs" session={session} csrf={c.get('csrf')}>
        <BriefView brief={stored.brief} created={stored.created_at} asker={asker} />
        <div style="margin-top:16px"></div>
        <Box title="Try it again" id="again">
          <TryForm
            csrf={c.get('csrf')}
            about={stored.brief.about}
            touching={stored.brief.touching.join('\n')}
            budget={String(stored.brief.budget)}
          />
        </Box>
      </Page>,
    );
  });

  return app;
}
