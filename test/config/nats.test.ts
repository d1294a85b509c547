// DOCO_NATS_* in the environment: off without DOCO_NATS_URL, the seed's subjects by default,
// one way to authenticate, TLS when asked for, and a clear refusal of what cannot work.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { configProblems } from '../helpers/config.js';

const problems = configProblems;

describe('the NATS configuration', () => {
  it('is off without DOCO_NATS_URL', () => {
    expect(loadConfig({}).nats).toBeUndefined();
  });

  it("follows the seed's subjects by default, with no credentials and no TLS", () => {
    expect(loadConfig({ DOCO_NATS_URL: 'nats://127.0.0.1:4222' }).nats).toEqual({
      servers: ['nats://127.0.0.1:4222'],
      auth: { kind: 'none' },
      tls: undefined,
      subjects: { register: 'service.register', unregister: 'service.unregister', gatewayOnline: 'gateway_online' },
      backoff: { minMs: 250, maxMs: 30_000 },
    });
  });

  it('takes several servers, other subjects, credentials, TLS files and the backoff', () => {
    const nats = loadConfig({
      DOCO_NATS_URL: 'tls://a.internal:4222, b.internal:4222',
      DOCO_NATS_USER: 'doco',
      DOCO_NATS_PASSWORD: 's3cret',
      DOCO_NATS_TLS_CA: '/etc/nats/ca.pem',
      DOCO_NATS_TLS_CERT: '/etc/nats/doco.pem',
      DOCO_NATS_TLS_KEY: '/etc/nats/doco.key',
      DOCO_NATS_SUBJECT_REGISTER: 'svc.*.register',
      DOCO_NATS_SUBJECT_UNREGISTER: 'svc.*.unregister',
      DOCO_NATS_SUBJECT_GATEWAY_ONLINE: 'gw.online',
      DOCO_NATS_BACKOFF_MIN_MS: '100',
      DOCO_NATS_BACKOFF_MAX_MS: '5000',
    }).nats;
    expect(nats).toEqual({
      servers: ['tls://a.internal:4222', 'b.internal:4222'],
      auth: { kind: 'user', user: 'doco', password: 's3cret' },
      tls: { caFile: '/etc/nats/ca.pem', certFile: '/etc/nats/doco.pem', keyFile: '/etc/nats/doco.key' },
      subjects: { register: 'svc.*.register', unregister: 'svc.*.unregister', gatewayOnline: 'gw.online' },
      backoff: { minMs: 100, maxMs: 5_000 },
    });
    expect(loadConfig({ DOCO_NATS_URL: 'tls://a:4222' }).nats?.tls).toEqual({ caFile: undefined, certFile: undefined, keyFile: undefined });
    expect(loadConfig({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_TOKEN: 't0k' }).nats?.auth).toEqual({ kind: 'token', token: 't0k' });
    expect(loadConfig({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_CREDS: '/etc/nats/doco.creds' }).nats?.auth).toEqual({
      kind: 'creds',
      file: '/etc/nats/doco.creds',
    });
  });

  it('refuses what cannot work, one sentence each, never quoting a secret', () => {
    expect(problems({ DOCO_NATS_URL: 'http://a:4222' })).toEqual([
      expect.stringMatching(/^DOCO_NATS_URL: must be nats:\/\/host:port or tls:\/\/host:port/),
    ]);
    expect(problems({ DOCO_NATS_URL: 'nats://doco:hunter2@a:4222' }).join(' ')).not.toContain('hunter2');
    expect(problems({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_TOKEN: 'hunter2', DOCO_NATS_USER: 'u', DOCO_NATS_PASSWORD: 'p' })).toEqual([
      'DOCO_NATS_*: set one way to authenticate, not DOCO_NATS_USER/PASSWORD and DOCO_NATS_TOKEN',
    ]);
    expect(problems({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_USER: 'u' })).toEqual([
      'DOCO_NATS_USER and DOCO_NATS_PASSWORD: set both or neither',
    ]);
    expect(problems({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_TLS_CERT: '/c.pem' })).toEqual([
      expect.stringMatching(/^DOCO_NATS_TLS_CERT and DOCO_NATS_TLS_KEY: set both/),
    ]);
    expect(problems({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_SUBJECT_REGISTER: 'bad subject' })).toEqual([
      expect.stringMatching(/^DOCO_NATS_SUBJECT_REGISTER: must be a NATS subject/),
    ]);
    expect(problems({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_SUBJECT_UNREGISTER: 'service.register' })).toEqual([
      'DOCO_NATS_SUBJECT_*: the three subjects must differ',
    ]);
    expect(problems({ DOCO_NATS_URL: 'nats://a:4222', DOCO_NATS_BACKOFF_MIN_MS: '5000', DOCO_NATS_BACKOFF_MAX_MS: '100' })).toEqual([
      'DOCO_NATS_BACKOFF_MIN_MS: must not exceed DOCO_NATS_BACKOFF_MAX_MS',
    ]);
    expect(problems({ DOCO_NATS_TOKEN: 'hunter2' })).toEqual(['DOCO_NATS_TOKEN: set without DOCO_NATS_URL, so nothing would use it']);
  });
});
