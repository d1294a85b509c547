// What Slack events and synced messages mean for their threads (src/connectors/slack/messages.ts):
// kept (with when they last changed), taken out (with when), retired or skipped; and mrkdwn
// spelled out as plain text.
import { describe, expect, it } from 'vitest';
import { eventAction, messageAction, plainText, tsToTimestamp } from '../../src/connectors/slack/messages.js';

const C = 'C0ONE';

describe('Slack message events', () => {
  it('keeps a top-level message as its own thread, a reply (or a broadcast reply) under its parent', () => {
    expect(eventAction({ type: 'message', channel: C, user: 'U1', text: 'hi', ts: '1700000000.000100' })).toEqual({
      op: 'keep',
      channel: C,
      threadTs: '1700000000.000100',
      ts: '1700000000.000100',
      changedTs: '1700000000.000100',
      user: 'U1',
      text: 'hi',
    });
    expect(
      eventAction({ type: 'message', channel: C, user: 'U1', text: 're', ts: '1700000001.000100', thread_ts: '1700000000.000100' }),
    ).toMatchObject({ op: 'keep', threadTs: '1700000000.000100', ts: '1700000001.000100' });
    expect(
      eventAction({
        type: 'message',
        subtype: 'thread_broadcast',
        channel: C,
        user: 'U1',
        text: 're',
        ts: '1700000002.000100',
        thread_ts: '1700000000.000100',
      }),
    ).toMatchObject({ op: 'keep', threadTs: '1700000000.000100' });
    expect(
      eventAction({
        type: 'message',
        subtype: 'file_share',
        channel: C,
        user: 'U1',
        text: '',
        ts: '1700000003.000100',
        files: [{ name: 'plan.pdf', title: 'Plan' }],
      }),
    ).toMatchObject({ op: 'keep', text: '(shared Plan)' });
  });

  it('an edit keeps the new text under the same ts, changed at its edited.ts; a tombstoned root retires its thread', () => {
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_changed',
        channel: C,
        ts: '1700000009.000001',
        message: {
          user: 'U1',
          text: 'v2',
          ts: '1700000001.000100',
          thread_ts: '1700000000.000100',
          edited: { user: 'U1', ts: '1700000009.000000' },
        },
      }),
    ).toEqual({
      op: 'keep',
      channel: C,
      threadTs: '1700000000.000100',
      ts: '1700000001.000100',
      changedTs: '1700000009.000000',
      user: 'U1',
      text: 'v2',
    });
    // A change that is no edit (an unfurl) carries no edited.ts: the message's own ts.
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_changed',
        channel: C,
        message: { user: 'U1', text: 'v1', ts: '1700000001.000100', thread_ts: '1700000000.000100' },
      }),
    ).toMatchObject({ op: 'keep', ts: '1700000001.000100', changedTs: '1700000001.000100' });
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_changed',
        channel: C,
        message: { subtype: 'tombstone', text: 'This message was deleted.', ts: '1700000000.000100' },
      }),
    ).toEqual({ op: 'retire', channel: C, threadTs: '1700000000.000100' });
  });

  it('a deleted reply is taken out; a deleted root (or lone message) retires its thread', () => {
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_deleted',
        channel: C,
        deleted_ts: '1700000001.000100',
        previous_message: { ts: '1700000001.000100', thread_ts: '1700000000.000100' },
      }),
    ).toEqual({ op: 'drop', channel: C, threadTs: '1700000000.000100', ts: '1700000001.000100' });
    // The deletion event's own ts is when the reply was deleted.
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_deleted',
        channel: C,
        ts: '1700000009.000001',
        deleted_ts: '1700000001.000100',
        previous_message: { ts: '1700000001.000100', thread_ts: '1700000000.000100' },
      }),
    ).toMatchObject({ op: 'drop', ts: '1700000001.000100', deletedTs: '1700000009.000001' });
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_deleted',
        channel: C,
        deleted_ts: '1700000000.000100',
        previous_message: { ts: '1700000000.000100', thread_ts: '1700000000.000100' },
      }),
    ).toEqual({ op: 'retire', channel: C, threadTs: '1700000000.000100' });
    expect(
      eventAction({
        type: 'message',
        subtype: 'message_deleted',
        channel: C,
        deleted_ts: '1700000005.000100',
        previous_message: { ts: '1700000005.000100' },
      }),
    ).toMatchObject({ op: 'retire' });
  });

  it('skips bots, channel noise, other event types and messages without a channel or ts', () => {
    for (const e of [
      { type: 'message', channel: C, bot_id: 'B1', text: 'deployed', ts: '1700000000.000100' },
      { type: 'message', subtype: 'bot_message', channel: C, text: 'deployed', ts: '1700000000.000100' },
      { type: 'message', subtype: 'channel_join', channel: C, user: 'U1', text: '<@U1> has joined', ts: '1700000000.000100' },
      { type: 'message', subtype: 'channel_leave', channel: C, user: 'U1', ts: '1700000000.000100' },
      { type: 'message', subtype: 'message_replied', channel: C, ts: '1700000000.000100' },
      { type: 'message', subtype: 'message_changed', channel: C, message: { bot_id: 'B1', text: 'x', ts: '1700000000.000100' } },
      { type: 'reaction_added', channel: C },
      { type: 'message', text: 'no channel', ts: '1700000000.000100' },
      { type: 'message', channel: C, text: 'no ts' },
      null,
    ])
      expect(eventAction(e).op, JSON.stringify(e)).toBe('skip');
    expect(messageAction(C, { ts: '1', text: 'x' }).op).toBe('skip');
  });

  it('a ts is a timestamptz to the microsecond', () => {
    expect(tsToTimestamp('1700000000.000100')).toBe('2023-11-14T22:13:20.000100Z');
    expect(tsToTimestamp('1700000000.5')).toBe('2023-11-14T22:13:20.500000Z');
  });

  it('spells mrkdwn out: links, mentions, channels, specials, entities', () => {
    expect(plainText('see <https://x.test/a|the doc>, <https://x.test/b>, <@U1>, <@U2|bob>, <#C1|general>, <!here> &amp; 1 &lt; 2')).toBe(
      'see the doc (https://x.test/a), https://x.test/b, @U1, @bob, #general, @here & 1 < 2',
    );
  });
});
