// The touches retriever (src/retrieval/retrievers.ts touchSeeds) over doco.touches: how strongly
// each record naming a touched path counts, by how it names the path and where (docs/brief.md,
// "Touches"). Records are written with plain SQL; the trigger derives their touches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINKS_ONLY_SHARE, MAX_VARIANT_PARTS, pathVariants, TOUCH_STRENGTH, touchSeeds } from '../../src/retrieval/retrievers.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
const BLOB = 'https://github.com/acme/node/blob/7cdf560/';

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'touch-seeds');
});
afterAll(async () => t.drop());

/** The score of each of `ids` on the touches list for `touching` (those on it), by name. */
async function scores(touching: string[], ids: Record<string, string>, multiPart = false): Promise<Record<string, number>> {
  const list = await touchSeeds(t.sql, ws.id, touching, multiPart);
  const on = Object.entries(ids).filter(([, id]) => list.ids.includes(id));
  return Object.fromEntries(on.map(([name, id]) => [name, list.scores[list.ids.indexOf(id)]!]));
}

describe('touchSeeds: where a record names the touched path', () => {
  it('a path named only in a references list counts in full when no record names it in prose', async () => {
    const ids = {
      references: await insertNode(t.sql, ws, {
        title: 'Timeout params — References',
        prose: `[hashed-params]: ${BLOB}types/params.go#L49`,
      }),
      fileName: await insertNode(t.sql, ws, { title: 'Params', prose: 'Defaults sit in params.go.' }),
    };
    expect(await scores(['types/params.go'], ids)).toEqual({ references: TOUCH_STRENGTH.exact, fileName: TOUCH_STRENGTH.fileName });
    // An ask with several concerns has its own words to find each by: the links are weak evidence there.
    expect(await scores(['types/params.go'], ids, true)).toEqual({
      references: TOUCH_STRENGTH.exact * LINKS_ONLY_SHARE,
      fileName: TOUCH_STRENGTH.fileName,
    });
  });

  it('beside a record naming it in prose, a links-only touch weighs LINKS_ONLY_SHARE, under the exact touch the floor lifts', async () => {
    const ids = {
      prose: await insertNode(t.sql, ws, {
        title: 'Peer transport — Context',
        prose: 'The transport is configured in config/config.go today.',
      }),
      references: await insertNode(t.sql, ws, {
        title: 'Timeout params — References',
        prose: `[current-timeout-defaults]: ${BLOB}config/config.go#L955`,
      }),
      used: await insertNode(t.sql, ws, { title: 'Timeouts', prose: `The [defaults] move.\n\n[defaults]: ${BLOB}config/config.go#L955` }),
    };
    expect(await scores(['config/config.go'], ids)).toEqual({
      prose: TOUCH_STRENGTH.exact,
      used: TOUCH_STRENGTH.exact,
      references: TOUCH_STRENGTH.exact * LINKS_ONLY_SHARE,
    });
  });
});

describe('touchSeeds: several touched paths', () => {
  it('scores each record as the lookup of its own path alone would', async () => {
    const ids = {
      one: await insertNode(t.sql, ws, { title: 'One', prose: 'The ledger lives in pkg/ledger/one.go.' }),
      two: await insertNode(t.sql, ws, { title: 'Two', prose: 'Payouts are cut in two.go of services/payouts.' }),
      issue: await insertNode(t.sql, ws, { title: 'Issue', prose: 'Tracked in acme/app#12.' }),
    };
    const alone = {
      ...(await scores(['pkg/ledger/one.go'], ids)),
      ...(await scores(['services/payouts/two.go'], ids)),
      ...(await scores(['acme/app#12'], ids)),
    };
    expect(Object.keys(alone).sort()).toEqual(['issue', 'one', 'two']);
    expect(await scores(['pkg/ledger/one.go', 'services/payouts/two.go', 'acme/app#12'], ids)).toEqual(alone);
  });
});

describe('pathVariants', () => {
  it('looks a path up by its suffixes and folders', () => {
    expect(pathVariants('./pkg/ledger/one.go')).toEqual(['pkg/ledger/one.go', 'ledger/one.go', 'one.go', 'pkg/ledger', 'pkg']);
  });

  it('bounds what a path hundreds of segments deep looks up (all its suffixes were O(segments²) characters)', () => {
    const deep = Array.from({ length: 500 }, (_, i) => `d${i}`).join('/');
    const variants = pathVariants(`${deep}/file.go`);
    expect(variants[0]).toBe(`${deep}/file.go`);
    expect(variants.length).toBeLessThanOrEqual(2 * MAX_VARIANT_PARTS + 1);
    expect(variants).toContain('d499/file.go');
    expect(variants).toContain('file.go');
    expect(variants).toContain('d0/d1');
    expect(Math.max(...variants.slice(1).map((v) => v.length))).toBeLessThanOrEqual(500);
  });
});
