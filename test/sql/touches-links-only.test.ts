// Touch evidence by where the text names it (sql/touches.sql, migration 0027): a path named in
// prose or a heading is strong; one named only among links (a reference definition the prose
// does not use, a list of links, a references section) is links_only, weak evidence the brief
// weighs less (docs/brief.md, "Touches").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertEdge, insertNode, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'links');
});
afterAll(async () => t.drop());

const BLOB = 'https://github.com/acme/node/blob/9f1c2e/';

/** The path touches of a doc section (its heading in body.pointer, as the doc ingester writes it): path → links_only. */
async function pathsOf(heading: string, prose: string): Promise<Record<string, boolean>> {
  const rows = await t.sql<{ value: string; links_only: boolean }[]>`
    select value, links_only from doco.record_touches(${`Node — ${heading}`}, ${prose},
      ${JSON.stringify({ pointer: { heading } })}::text::jsonb)
     where kind = 'path' order by value`;
  return Object.fromEntries(rows.map((r) => [r.value, r.links_only]));
}

describe('doco.record_touches: where a path is named', () => {
  it('prose and inline links in a sentence are strong', async () => {
    expect(await pathsOf('Context', `The timeouts live in config/config.go; see [the defaults](${BLOB}types/params.go#L79).`)).toEqual({
      'config/config.go': false,
      'types/params.go': false,
    });
  });

  it('a reference definition nothing in the prose uses is links-only; one the prose uses is the prose link', async () => {
    const prose = [
      'Votes are signed through the [Signable] interface.',
      '',
      `[Signable]: ${BLOB}types/signable.go#L9-L11`,
      `[current-timeout-defaults]: ${BLOB}config/config.go#L955`,
    ].join('\n');
    expect(await pathsOf('Vote', prose)).toEqual({ 'config/config.go': true, 'types/signable.go': false });
  });

  it('a label used only from a collapsed or full reference link still counts as used', async () => {
    const prose = `Both [params][] and [the defaults][dflt] move.\n\n[params]: ${BLOB}types/params.go\n[dflt]: ${BLOB}config/config.go`;
    expect(await pathsOf('Decision', prose)).toEqual({ 'config/config.go': false, 'types/params.go': false });
  });

  it('everything under a references heading is links-only, the section being its own heading or one inside the prose', async () => {
    expect(await pathsOf('References', `- [ADR 61][adr61]\n- see mempool/mempool.go too\n\n[adr61]: ${BLOB}p2p/switch.go`)).toEqual({
      'mempool/mempool.go': true,
      'p2p/switch.go': true,
    });
    const whole = `We move state/validation.go.\n\n## See also\n\n- [Params](${BLOB}types/params.go)\n\n## Consequences\n\nAnd types/vote.go.`;
    expect(await pathsOf('(intro)', whole)).toEqual({ 'state/validation.go': false, 'types/params.go': true, 'types/vote.go': false });
  });

  it('a list of links is links-only where links are most of its lines, prose beside it stays strong', async () => {
    const list = [
      'The proposals:',
      `- [ADR 12](${BLOB}docs/adr-012.md): the peer transport`,
      `- [ADR 74](${BLOB}docs/adr-074.md)`,
      '- State sync: <https://github.com/acme/node/blob/main/statesync/syncer.go>',
      'Start from cmd/node/main.go.',
    ].join('\n');
    expect(await pathsOf('Proposed', list)).toEqual({
      'cmd/node/main.go': false,
      'docs/adr-012.md': true,
      'docs/adr-074.md': true,
      'statesync/syncer.go': true,
    });
    // One link line among prose is the prose's own link.
    const prose = `The transport changes.\nIt moves the listener.\n- [the switch](${BLOB}p2p/switch.go)\nNothing else moves.`;
    expect(await pathsOf('Switch', prose)).toEqual({ 'p2p/switch.go': false });
  });

  it('a heading, the title, body fields and the comment idiom are never links-only; nor is anything in fenced code', async () => {
    const prose = [
      '### The move to p2p/transport.go',
      '',
      '[embedmd]:# (./runtime-example.yaml)',
      '```yaml',
      '[x]: config/config.toml',
      '## References',
      '```',
      'Read mempool/clist.go.',
    ].join('\n');
    expect(await pathsOf('Transport', prose)).toEqual({
      'config/config.toml': false,
      'mempool/clist.go': false,
      'p2p/transport.go': false,
      'runtime-example.yaml': false,
    });
    const rows = await t.sql<{ value: string; links_only: boolean }[]>`
      select value, links_only from doco.record_touches('See node/node.go', ${`[n]: ${BLOB}node/node.go`},
        '{"pointer": {"heading": "References"}, "touch_paths": ["bin/deploy"], "files": "state/store.go"}'::jsonb)
       where kind = 'path' order by value`;
    expect(rows).toEqual([
      { value: 'bin/deploy', links_only: false },
      { value: 'node/node.go', links_only: false },
      { value: 'state/store.go', links_only: false },
    ]);
  });

  it('names every touch extract_touches finds in the whole text, URLs and issues too', async () => {
    const prose = `Fixes #12.\n\n## References\n\n- [PR](https://github.com/acme/node/pull/40)\n- docs at https://example.com/guide`;
    const placed = await t.sql<{ kind: string; value: string; links_only: boolean }[]>`
      select kind, value, links_only from doco.record_touches('Title', ${prose}, '{}'::jsonb) order by kind, value`;
    const whole = await t.sql<{ kind: string; value: string }[]>`
      select kind, value from doco.extract_touches(doco.node_text('Title', ${prose}, '{}'::jsonb)) order by kind, value`;
    expect(placed.map(({ kind, value }) => ({ kind, value }))).toEqual(whole);
    expect(placed.filter((r) => !r.links_only).map((r) => r.value)).toEqual(['#12']);
  });
});

describe('doco.is_references_heading', () => {
  it.each([
    ['References', true],
    ['7. References', true],
    ['Appendix A: References', true],
    ['See also', true],
    ['Further reading', true],
    ['References and further reading', true],
    ['Additional Resources', true],
    ['Related work', true],
    ['Useful links', true],
    ['Reference', false],
    ['Resources', false],
    ['Fast Sync Related Communication Channels', false],
    ['Configuration reference', false],
    [null, false],
  ])('%j → %j', async (heading, expected) => {
    const [row] = await t.sql<{ r: boolean }[]>`select doco.is_references_heading(${heading}) as r`;
    expect(row!.r).toBe(expected);
  });
});

describe('the touches trigger keeps links_only', () => {
  const stored = async (id: string) =>
    (
      await t.sql<{ value: string; links_only: boolean; inherited_from: string | null }[]>`
      select value, links_only, inherited_from from doco.touches where node_id = ${id} and kind = 'path' order by value`
    ).map((r) => `${r.value}${r.links_only ? ' [links]' : ''}${r.inherited_from ? ' (inherited)' : ''}`);

  it('on insert and on every edit, from psql', async () => {
    const id = await insertNode(t.sql, ws, { title: 'Timeouts', prose: `Moved.\n\n[defaults]: ${BLOB}config/config.go#L12` });
    expect(await stored(id)).toEqual(['config/config.go [links]']);
    await t.sql`update doco.nodes set prose = ${`Moved out of [defaults].\n\n[defaults]: ${BLOB}config/config.go#L12`} where id = ${id}`;
    expect(await stored(id)).toEqual(['config/config.go']);
  });

  it('a replacement inherits links_only, and is strong where either names it outside links', async () => {
    const old = await insertNode(t.sql, ws, { title: 'Old', prose: `Old.\n\n[a]: ${BLOB}types/params.go\n[b]: ${BLOB}types/vote.go` });
    const next = await insertNode(t.sql, ws, { title: 'New', prose: 'It changes types/vote.go.' });
    await insertEdge(t.sql, ws, next, old, 'replaces');
    expect(await stored(next)).toEqual(['types/params.go [links] (inherited)', 'types/vote.go (inherited)']);
    await t.sql`update doco.nodes set prose = 'It changes types/params.go.' where id = ${next}`;
    expect(await stored(next)).toEqual(['types/params.go (inherited)', 'types/vote.go (inherited)']);
  });
});
