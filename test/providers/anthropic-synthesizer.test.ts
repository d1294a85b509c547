// The Anthropic synthesizer against a loopback fake of the Messages API, through the real SDK:
// what it asks, how it holds the answer to 70 words and to real ids, and how it fails.
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicSynthesizer, MAX_WORDS } from '../../src/providers/anthropic-synthesizer.js';
import type { SynthesisItem } from '../../src/providers/synthesizer.js';
import { anthropicError, anthropicText } from '../helpers/fake-providers.js';
import { JsonServer, parsed, type JsonAnswer } from '../helpers/json-server.js';
import { noWait } from '../helpers/retry.js';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { model: string; max_tokens: number; system?: string; messages: { role: string; content: string }[] };
}
type Reply = JsonAnswer;

/**
 * Stands in for Anthropic's Messages API (POST https://api.anthropic.com/v1/messages): answers
 * with the documented message shape, or an error in Anthropic's error shape. Errors carry
 * `retry-after-ms: 1`, a header the SDK honours, so its retries do not wait half a second each.
 */
class FakeAnthropic {
  seen: SeenRequest[] = [];
  reply: Reply = FakeAnthropic.text('Nothing to say.');
  hanging: Promise<void> = Promise.resolve();
  private markHanging: () => void = () => {};
  private server = new JsonServer((req) => {
    this.seen.push(parsed(req));
    const reply: Reply =
      req.method === 'POST' && req.url === '/v1/messages'
        ? this.reply
        : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not found' } } };
    if (reply === 'hang' || reply === 'drop') {
      if (reply === 'hang') this.markHanging();
      return reply;
    }
    return { ...reply, headers: { 'request-id': `req_${this.seen.length}`, ...reply.headers } };
  });

  hang() {
    this.reply = 'hang';
    this.hanging = new Promise((resolve) => (this.markHanging = resolve));
  }

  static text(text: string): Reply {
    return anthropicText(text);
  }
  static serverError(): Reply {
    return anthropicError(500);
  }

  start = () => this.server.start();
  stop = () => this.server.stop();
}

const ITEMS: SynthesisItem[] = [
  {
    id: 'rule_01JRULE',
    tier: 'must_obey',
    title: 'Second approver for large refunds',
    text: 'Every refund above 500 EUR needs a second approver.',
  },
  {
    id: 'decision_01JDEC',
    tier: 'already_decided',
    title: 'Refunds through Stripe',
    text: `We issue partial refunds through Stripe, never by hand. ${'Context. '.repeat(200)}`,
  },
  { id: 'doc_01JDOC', tier: 'background', title: '', text: 'The finance dashboard lists refunds daily.' },
];

let fake: FakeAnthropic;
let baseURL: string;
const synthesizer = (maxAttempts = 1) =>
  anthropicSynthesizer({ apiKey: 'sk-test', baseURL, timeoutMs: 5_000, retry: { ...noWait, maxAttempts } });

beforeAll(async () => {
  fake = new FakeAnthropic();
  baseURL = await fake.start();
});
beforeEach(() => {
  fake.seen = [];
  fake.reply = FakeAnthropic.text('Nothing to say.');
});
afterAll(async () => {
  await fake.stop();
});

describe('anthropicSynthesizer', () => {
  it('sends the model, the ask and every item with its id, tier, title and trimmed text', async () => {
    fake.reply = FakeAnthropic.text(
      'Refunds above 500 EUR need a second approver [rule_01JRULE]; partial refunds go through Stripe [decision_01JDEC].',
    );
    const s = synthesizer();
    expect(s.name).toBe('anthropic:claude-haiku-4-5');
    const result = await s.synthesize('how do partial refunds work', ITEMS);
    expect(fake.seen).toHaveLength(1);
    const [req] = fake.seen;
    expect(req!.url).toBe('/v1/messages');
    expect(req!.body.model).toBe('claude-haiku-4-5');
    expect(req!.body.system).toContain('70 words');
    const prompt = req!.body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('how do partial refunds work');
    for (const item of ITEMS) {
      expect(prompt).toContain(`[${item.id}] (${item.tier})`);
      if (item.title) expect(prompt).toContain(item.title);
    }
    expect(prompt).toContain('Every refund above 500 EUR needs a second approver.');
    expect(prompt).toContain('We issue partial refunds through Stripe, never by hand.');
    // The long item is trimmed, not sent whole.
    expect(prompt.length).toBeLessThan(ITEMS[1]!.text.length);
    expect(result).toEqual({
      text: 'Refunds above 500 EUR need a second approver [rule_01JRULE]; partial refunds go through Stripe [decision_01JDEC].',
      cites: ['rule_01JRULE', 'decision_01JDEC'],
    });
  });

  it('marks an item of an ADR not in force in its head, and tells the model not to state it as decided', async () => {
    fake.reply = FakeAnthropic.text('Streaming payouts was turned down [reference_01JADR].');
    const items: SynthesisItem[] = [
      {
        id: 'reference_01JADR',
        tier: 'architecture',
        title: 'ADR 2: Payout streaming — Decision',
        text: 'We will stream payouts.',
        note: 'ADR rejected',
      },
    ];
    await synthesizer().synthesize('should payouts be streamed', items);
    const [req] = fake.seen;
    expect(req!.body.messages.map((m) => m.content).join('\n')).toContain(
      '[reference_01JADR] (architecture; ADR rejected) ADR 2: Payout streaming',
    );
    expect(req!.body.system).toContain('not in force: never state it as decided');
  });

  it("says in an item's head which identifier of the code being written it names", async () => {
    fake.reply = FakeAnthropic.text('The skip flag was renamed [reference_01JTIME].');
    const items: SynthesisItem[] = [
      {
        id: 'reference_01JTIME',
        tier: 'background',
        title: 'ADR 74: Timeouts',
        text: 'BypassCommitTimeout replaces SkipTimeoutCommit.',
        names: 'SkipTimeoutCommit',
      },
    ];
    await synthesizer().synthesize('Edit config/config.go: SkipTimeoutCommit: true,', items);
    expect(fake.seen[0]!.body.messages.map((m) => m.content).join('\n')).toContain(
      '[reference_01JTIME] (background; names SkipTimeoutCommit, in the code being written) ADR 74: Timeouts',
    );
  });

  it('sends the model it is given', async () => {
    await anthropicSynthesizer({ apiKey: 'sk-test', baseURL, timeoutMs: 5_000, model: 'claude-haiku-4-5-20251001' }).synthesize(
      'refunds',
      ITEMS,
    );
    expect(fake.seen[0]!.body.model).toBe('claude-haiku-4-5-20251001');
  });

  it('cuts an over-long answer to 70 words and cites only what survives the cut', async () => {
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
    words[10] = '[rule_01JRULE]';
    words[100] = '[doc_01JDOC]';
    fake.reply = FakeAnthropic.text(words.join(' '));
    const { text, cites } = await synthesizer().synthesize('refunds', ITEMS);
    expect(text.split(/\s+/)).toHaveLength(MAX_WORDS);
    expect(text.startsWith('word0 word1')).toBe(true);
    expect(text.endsWith('word69…')).toBe(true);
    expect(cites).toEqual(['rule_01JRULE']);
  });

  it('drops invented ids from the cites', async () => {
    fake.reply = FakeAnthropic.text('Use Stripe [decision_01JDEC, decision_99MADEUP]; see also [rule_01JRULEX] and [doc_01JDOC].');
    const { cites } = await synthesizer().synthesize('refunds', ITEMS);
    // rule_01JRULEX is not rule_01JRULE: an id counts only as a whole token.
    expect(cites).toEqual(['decision_01JDEC', 'doc_01JDOC']);
  });

  it('throws after its retries when the API answers 500', async () => {
    fake.reply = FakeAnthropic.serverError();
    await expect(synthesizer(3).synthesize('refunds', ITEMS)).rejects.toMatchObject({
      name: 'ProviderError',
      upstreamStatus: 500,
      attempts: 3,
      message: 'anthropic messages failed: HTTP 500 (Internal server error) after 3 attempts',
    });
    expect(fake.seen).toHaveLength(3);
  });

  it('aborts mid-request with an AbortError', async () => {
    fake.hang();
    const controller = new AbortController();
    const pending = synthesizer(3).synthesize('refunds', ITEMS, controller.signal);
    await fake.hanging;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.seen).toHaveLength(1);
  });

  it('asks nothing for no items or an already-aborted signal', async () => {
    expect(await synthesizer().synthesize('refunds', [])).toEqual({ text: '', cites: [] });
    await expect(synthesizer().synthesize('refunds', ITEMS, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.seen).toHaveLength(0);
  });
});
