// A listing whose API gives a cursor it gave before stops with an error instead of reading the
// same pages for ever: the guard itself, Slack's cursor walk and Notion's block children (the
// GitHub, Drive and Notion search walks are tested against their fakes in their own suites).
import { describe, expect, it } from 'vitest';
import { pageBlocks } from '../../src/connectors/notion/blocks.js';
import type { NotionClient } from '../../src/connectors/notion/client.js';
import { pageCursors, RepeatedCursorError } from '../../src/connectors/page-cursors.js';
import { SlackClient } from '../../src/connectors/slack/client.js';

describe('pageCursors', () => {
  it('passes every new cursor through and refuses one it has seen, or the one the walk started from', () => {
    const c = pageCursors('listing', 'start');
    expect(c.next('a')).toBe('a');
    expect(c.next('b')).toBe('b');
    expect(() => c.next('a')).toThrow(RepeatedCursorError);
    expect(() => c.next('start')).toThrow('listing: the API gave the page cursor "start" a second time; stopped reading its pages');
  });

  it('shortens a long cursor in its message', () => {
    const c = pageCursors('listing');
    const long = 'x'.repeat(500);
    c.next(long);
    expect(() => c.next(long)).toThrow(`"${'x'.repeat(40)}…"`);
  });
});

describe('the walks', () => {
  it('Slack: a next_cursor given twice stops the walk after two pages', async () => {
    const client = new SlackClient({ apiUrl: 'http://127.0.0.1:9/api', token: 'xoxb-test' });
    const asked: (string | undefined)[] = [];
    const walk = client.eachPage(
      'conversations.list',
      async (cursor) => {
        asked.push(cursor);
        return { channels: [], response_metadata: { next_cursor: 'dGVhbTpDMDYx' } };
      },
      async () => {},
    );
    await expect(walk).rejects.toThrow('slack conversations.list: the API gave the page cursor "dGVhbTpDMDYx" a second time');
    expect(asked).toEqual([undefined, 'dGVhbTpDMDYx']);
  });

  it("Notion: a block's children whose next_cursor repeats stop after two pages", async () => {
    const asked: (string | undefined)[] = [];
    const client = {
      children: async (_id: string, cursor?: string) => {
        asked.push(cursor);
        return {
          object: 'list',
          results: [{ id: `b${asked.length}`, type: 'paragraph', has_children: false }],
          next_cursor: 'c1',
          has_more: true,
        };
      },
    } as unknown as NotionClient;
    await expect(pageBlocks(client, 'page-1')).rejects.toThrow(
      'notion block page-1 children: the API gave the page cursor "c1" a second time',
    );
    expect(asked).toEqual([undefined, 'c1']);
  });
});
