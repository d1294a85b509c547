// Decoding the NATS messages of the docs-pack subscriber: the three shapes, the members a
// registration may carry for other consumers, and every way a message can be malformed, each a
// problem sentence that names the field but never quotes the payload.
import { describe, expect, it } from 'vitest';
import { decodeNatsMessage, MAX_MESSAGE_BYTES, type NatsMessageKind } from '../../src/nats/messages.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const json = (v: unknown) => bytes(JSON.stringify(v));
const decode = (kind: NatsMessageKind, data: Uint8Array) => decodeNatsMessage(kind, data);

describe('service.register', () => {
  it('takes a registration with the docs_pack capability, ignoring members meant for others, trimming the URL', () => {
    const msg = {
      code: 'billing',
      base_url: 'http://billing.internal:8080/',
      capabilities: ['http', 'docs_pack'],
      version: '2.4.0',
      tags: { team: 'pay' },
    };
    expect(decode('register', json(msg))).toEqual({
      ok: true,
      event: { kind: 'register', code: 'billing', baseUrl: 'http://billing.internal:8080' },
    });
  });

  it('passes over a service without the docs_pack capability, whatever else it lacks', () => {
    expect(decode('register', json({ code: 'Not A Code', capabilities: ['http'] }))).toEqual({
      ok: true,
      event: { kind: 'not_a_docs_pack' },
    });
    expect(decode('register', json({ capabilities: [] }))).toEqual({ ok: true, event: { kind: 'not_a_docs_pack' } });
  });

  it.each([
    ['not JSON', bytes('{code: billing'), /^the message is not JSON \(/],
    ['empty', bytes('  '), /^the message is empty; a JSON object was expected$/],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /^the message is not UTF-8 text$/],
    ['an array', json([1, 2]), /^the message must be a JSON object$/],
    ['a JSON string', json('billing'), /^the message must be a JSON object$/],
    ['without capabilities', json({ code: 'billing', base_url: 'http://b:1' }), /^capabilities Invalid key: Expected "capabilities"/],
    [
      'capabilities not a list',
      json({ code: 'billing', base_url: 'http://b:1', capabilities: 'docs_pack' }),
      /^capabilities Invalid type: Expected Array/,
    ],
    ['a bad code', json({ code: '../etc', base_url: 'http://b:1', capabilities: ['docs_pack'] }), /^code must be a pack code/],
    ['no base_url', json({ code: 'billing', capabilities: ['docs_pack'] }), /^base_url Invalid key/],
    [
      'a base_url with credentials',
      json({ code: 'billing', base_url: 'http://user:hunter2@b:1', capabilities: ['docs_pack'] }),
      /^base_url must be an http\(s\) URL without credentials/,
    ],
    [
      'a file: base_url',
      json({ code: 'billing', base_url: 'file:///etc', capabilities: ['docs_pack'] }),
      /^base_url must be an http\(s\) URL/,
    ],
    ['too large', bytes(`{"pad":"${'x'.repeat(MAX_MESSAGE_BYTES)}"}`), /^the message has \d+ bytes; at most 65536 are read$/],
  ])('refuses a message that is %s, with a sentence that does not quote it', (_what, data, problem) => {
    const decoded = decode('register', data);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.problem).toMatch(problem);
    expect(decoded.problem).not.toContain('hunter2');
  });
});

describe('service.unregister', () => {
  it('takes a code, ignoring other members', () => {
    expect(decode('unregister', json({ code: 'billing', reason: 'shutdown' }))).toEqual({
      ok: true,
      event: { kind: 'unregister', code: 'billing' },
    });
  });

  it('refuses one without a valid code', () => {
    expect(decode('unregister', json({}))).toMatchObject({ ok: false, problem: expect.stringMatching(/^code Invalid key/) });
    expect(decode('unregister', json({ code: 42 }))).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^code must be a string \(a pack code\)/),
    });
    expect(decode('unregister', bytes('billing'))).toMatchObject({ ok: false, problem: expect.stringMatching(/^the message is not JSON/) });
  });
});

describe('gateway_online', () => {
  it('takes an empty message or any JSON object', () => {
    for (const data of [new Uint8Array(), bytes('{}'), json({ gateway: 'gw-1', at: '2024-01-01' })]) {
      expect(decode('gatewayOnline', data)).toEqual({ ok: true, event: { kind: 'gateway_online' } });
    }
  });

  it('refuses JSON that is not an object, and text that is not JSON', () => {
    expect(decode('gatewayOnline', json([1]))).toEqual({ ok: false, problem: 'the message must be empty or a JSON object' });
    expect(decode('gatewayOnline', json('online'))).toEqual({ ok: false, problem: 'the message must be empty or a JSON object' });
    expect(decode('gatewayOnline', bytes('online'))).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^the message is not JSON/),
    });
  });
});
