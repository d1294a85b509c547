// The Drive client against the loopback fake: the service account's RS256 assertion verified by
// the fake's token endpoint with the test key, the token cached and refreshed once on a 401, a
// supplied access token used as is, quota errors retried with exponential backoff and jitter
// (on injected sleeps: nothing here waits), any other 403 not retried, Docs exported as Markdown
// with a plain-text fallback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../src/connectors/drive/client.js';
import { parseServiceAccount } from '../../src/connectors/drive/service-account.js';
import { ProviderError } from '../../src/lib/retry.js';
import { FakeDrive, GOOGLE_DOC, serviceAccountKey } from '../helpers/fake-drive.js';
import { instantSleep } from '../helpers/retry.js';

const key = serviceAccountKey();
let fake: FakeDrive;
let origin: string;

const client = (over: { sleep?: ReturnType<typeof instantSleep>['sleep']; accessToken?: string } = {}) =>
  new DriveClient({
    apiUrl: origin,
    tokenUrl: fake.tokenUrl,
    auth: over.accessToken ? { accessToken: over.accessToken } : { serviceAccount: parseServiceAccount(key.json, 'test key') },
    retry: { sleep: over.sleep ?? (async () => {}), random: () => 0.5 },
  });

beforeAll(async () => {
  fake = new FakeDrive(key);
  origin = await fake.start();
});
afterAll(() => fake.stop());

describe('DriveClient auth', () => {
  it('exchanges a signed assertion the fake verifies, caches the token, and refreshes it once on a 401', async () => {
    const c = client();
    expect(await c.startPageToken()).toBe('1');
    await c.startPageToken();
    expect(fake.tokensIssued).toBe(1);
    fake.revokeTokens();
    expect(await c.startPageToken()).toBe('1');
    expect(fake.tokensIssued).toBe(2);
  });

  it('a key the token endpoint does not know is a clear error naming invalid_grant', async () => {
    const other = serviceAccountKey();
    const c = new DriveClient({
      apiUrl: origin,
      tokenUrl: fake.tokenUrl,
      auth: { serviceAccount: parseServiceAccount(other.json, 'other key') },
      retry: { maxAttempts: 1 },
    });
    const err = await c.startPageToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toMatch(/HTTP 400 \(invalid_grant/);
    expect((err as Error).message).not.toContain('eyJ'); // no JWT in the message
  });

  it('uses a supplied access token as is', async () => {
    fake.accept('ya29.supplied');
    const issued = fake.tokensIssued;
    expect(await client({ accessToken: 'ya29.supplied' }).startPageToken()).toBe('1');
    expect(fake.tokensIssued).toBe(issued);
  });

  it('refuses a key file that is not a service account key, without quoting it', () => {
    expect(() => parseServiceAccount('{"private_key": "nope-secret"}', 'GOOGLE_SERVICE_ACCOUNT_FILE (k.json)')).toThrow(/no client_email/);
    expect(() => parseServiceAccount('{"client_email": "a@b", "private_key": "nope-secret"}', 'k.json')).toThrow(/not a PEM private key/);
    expect(() => parseServiceAccount('{"client_email": "a@b", "private_key": "nope-secret"}', 'k.json')).not.toThrow(/nope-secret/);
  });
});

describe('DriveClient errors', () => {
  it('retries quota errors (403 userRateLimitExceeded, 403 rateLimitExceeded, 429) with growing waits, then succeeds', async () => {
    const { waits, sleep } = instantSleep();
    fake.failures.push(
      { status: 403, reason: 'userRateLimitExceeded' },
      { status: 403, reason: 'rateLimitExceeded' },
      { status: 429, reason: 'rateLimitExceeded' },
    );
    expect(await client({ sleep }).startPageToken()).toBe('1');
    expect(waits).toEqual([500, 1000, 2000]); // full jitter at 0.5 of 1 s, 2 s, 4 s
  });

  it('honours Retry-After when a 429 gives one', async () => {
    const { waits, sleep } = instantSleep();
    fake.failures.push({ status: 429, reason: 'rateLimitExceeded', headers: { 'retry-after': '7' } });
    await client({ sleep }).startPageToken();
    expect(waits).toEqual([7000]);
  });

  it('does not retry any other 403', async () => {
    const { waits, sleep } = instantSleep();
    fake.failures.push({ status: 403, reason: 'insufficientFilePermissions' });
    await expect(client({ sleep }).startPageToken()).rejects.toThrow(/HTTP 403 \(insufficientFilePermissions/);
    expect(waits).toEqual([]);
  });
});

describe('DriveClient content', () => {
  it('exports a Doc as Markdown, falling back to plain text where Markdown is refused; downloads a stored file', async () => {
    const doc = fake.add({ name: 'Spec', mimeType: GOOGLE_DOC, parents: ['root'], content: '# Spec\n\n**Bold** move.' });
    const md = fake.add({ name: 'notes.md', mimeType: 'text/markdown', parents: ['root'], content: '- a\n- b' });
    const c = client();
    expect(await c.exportDoc(doc.id)).toBe('# Spec\n\n**Bold** move.');
    fake.markdownExport = false;
    expect(await c.exportDoc(doc.id)).toBe('Spec\n\nBold move.');
    fake.markdownExport = true;
    expect(await c.download(md.id)).toBe('- a\n- b');
  });
});
