// The Notion client against the loopback fake: search pages followed by start_cursor while
// has_more, block children paginated and nested blocks read recursively, the shared pacer
// spacing requests at ~3/s (on an injected clock: nothing here waits), 429 Retry-After honoured
// and held for every caller, a wrong token a clear error that is not retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBlocks } from '../../src/connectors/notion/blocks.js';
import { NotionClient } from '../../src/connectors/notion/client.js';
import { Pacer } from '../../src/connectors/pacer.js';
import { ProviderError } from '../../src/lib/retry.js';
import { block, FakeNotion, para, text } from '../helpers/fake-notion.js';

let fake: FakeNotion;
let origin: string;

/** A client on a virtual clock: the pacer's and the retries' waits advance it instead of sleeping. */
function virtualClient(token = fake.token) {
  let now = 1_000_000;
  const waits: { by: 'pacer' | 'retry'; ms: number }[] = [];
  const client = new NotionClient({
    apiUrl: origin,
    token,
    now: () => now,
    sleep: async (ms) => {
      waits.push({ by: 'pacer', ms });
      now += ms;
    },
    retry: {
      sleep: async (ms) => {
        waits.push({ by: 'retry', ms });
        now += ms;
      },
      random: () => 0,
    },
  });
  return { client, waits, elapsed: () => now - 1_000_000 };
}

beforeAll(async () => {
  fake = new FakeNotion();
  origin = await fake.start();
});
afterAll(() => fake.stop());

describe('NotionClient', () => {
  it('walks search by start_cursor while has_more, newest edit first', async () => {
    for (let i = 0; i < 230; i++) {
      fake.clock += 60_000;
      fake.addPage({ title: `Page ${i}`, blocks: [para(`Body ${i}`)] });
    }
    const { client } = virtualClient();
    const titles: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.search(cursor);
      pages++;
      titles.push(...page.results.map((p) => p.properties!.Name!.title![0]!.plain_text));
      cursor = page.has_more ? page.next_cursor! : undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(titles).toHaveLength(230);
    expect(titles[0]).toBe('Page 229');
    expect(titles.at(-1)).toBe('Page 0');
  });

  it('reads nested blocks and paginated children, and does not descend into sub-pages', async () => {
    const many = Array.from({ length: 150 }, (_, i) => para(`line ${i}`));
    const page = fake.addPage({
      title: 'Nested',
      blocks: [
        block('toggle', { rich_text: [text('Open me')] }, [block('bulleted_list_item', { rich_text: [text('inside')] }, [para('deeper')])]),
        block('child_page', { title: 'Sub' }, [para('not read')]),
        block('column_list', {}, many.length ? [block('column', {}, many)] : []),
      ],
    });
    fake.requests.length = 0;
    const { client } = virtualClient();
    const blocks = await pageBlocks(client, page.id);
    expect(blocks.map((b) => b.type)).toEqual(['toggle', 'child_page', 'column_list']);
    expect(blocks[0]!.children![0]!.children![0]!.type).toBe('paragraph');
    expect(blocks[1]!.children).toBeUndefined();
    expect(blocks[2]!.children![0]!.children).toHaveLength(150);
    // page, toggle, list item, column_list, column ×2 pages (150 children at 100 a page)
    expect(fake.requests.filter((r) => r.path.includes('/children'))).toHaveLength(6);
  });

  it('paces every request to about 3 per second', async () => {
    const { client, waits, elapsed } = virtualClient();
    for (let i = 0; i < 10; i++) await client.search();
    expect(client.requests).toBe(10);
    // Ten turns 1/3 s apart: the tenth starts 3 s after the first.
    expect(elapsed()).toBeGreaterThanOrEqual(2_990);
    expect(elapsed()).toBeLessThan(3_010);
    expect(waits.every((w) => w.by === 'pacer')).toBe(true);
  });

  it('honours a 429 Retry-After, holding the pacer too, then succeeds', async () => {
    const { client, waits } = virtualClient();
    fake.failures.push({ status: 429, code: 'rate_limited', headers: { 'retry-after': '2' } });
    const page = await client.search();
    expect(page.results.length).toBeGreaterThan(0);
    const retry = waits.find((w) => w.by === 'retry');
    expect(retry?.ms).toBeGreaterThanOrEqual(2_000);
  });

  it('a Retry-After beyond the cap fails now, for the next tick to retry', async () => {
    const { client } = virtualClient();
    fake.failures.push({ status: 429, code: 'rate_limited', headers: { 'retry-after': '3600' } });
    await expect(client.search()).rejects.toThrow(/rate limited for 3600 s/);
  });

  it('a wrong token is a 401 ProviderError, tried once', async () => {
    const { client } = virtualClient('ntn_wrong');
    const err = await client.search().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).upstreamStatus).toBe(401);
    expect((err as ProviderError).attempts).toBe(1);
    expect((err as Error).message).not.toContain('ntn_wrong');
  });

  it('a page that is gone reads as undefined', async () => {
    const { client } = virtualClient();
    expect(await client.page('11111111-2222-4333-8444-555555555555')).toBeUndefined();
  });
});

describe('Pacer', () => {
  it('hands out turns in call order, 1/rate apart; a hold (a 429) pushes every later turn back', async () => {
    const slept: number[] = [];
    const pacer = new Pacer(3, { now: () => 0, sleep: async (ms) => void slept.push(Math.round(ms)) });
    await Promise.all([pacer.turn(), pacer.turn(), pacer.turn()]);
    pacer.holdUntil(5_000);
    await pacer.turn();
    expect(slept).toEqual([333, 667, 5_000]);
  });

  it('refuses a rate that is not above zero', () => {
    expect(() => new Pacer(0)).toThrow(RangeError);
  });
});
