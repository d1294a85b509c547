// A GitHub App for tests: an RSA pair (the fake checks JWTs with the public half), the fake API
// with one repository, and webhook deliveries signed the documented way.
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { FakeGithub, type FakePull } from './fake-github.js';

export const APP_ID = '123456';
export const INSTALLATION_ID = 4242;
export const WEBHOOK_SECRET = 'test-webhook-secret-not-a-real-one';

export function appKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, publicKey, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

export function fakeGithub(publicKey: ReturnType<typeof appKeys>['publicKey'], repo?: string) {
  return new FakeGithub({ publicKey, appId: APP_ID, installationId: INSTALLATION_ID }, repo);
}

export const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The headers and body GitHub sends for one delivery. */
export function delivery(event: string, payload: unknown, opts: { secret?: string; id?: string; signature?: string } = {}) {
  const body = JSON.stringify(payload);
  const id = opts.id ?? randomUUID();
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-github-hook-id': '1',
      'x-hub-signature-256': opts.signature ?? sign(opts.secret ?? WEBHOOK_SECRET, body),
    },
  };
}

/**
 * A pull request the fake holds, and the `pull_request` "opened" delivery GitHub sends for it:
 * an open PR of `repo` from a branch into main, its one file changed.
 */
export function openedPullDelivery(
  gh: FakeGithub,
  repo: string,
  pr: { number: number; title: string; body: string; branch: string; file: string; updated_at: string },
) {
  const pull: FakePull = {
    number: pr.number,
    title: pr.title,
    body: pr.body,
    state: 'open',
    merged: false,
    updated_at: pr.updated_at,
    head: { ref: pr.branch },
    base: { ref: 'main' },
    files: [pr.file],
  };
  gh.pulls.set(pull.number, pull);
  return delivery('pull_request', {
    action: 'opened',
    number: pull.number,
    pull_request: gh.pullJson(pull),
    repository: { full_name: repo },
    installation: { id: INSTALLATION_ID },
  });
}
