// The Slack connector's configuration (src/config/environment.ts, src/connectors/slack/from-config.ts): SLACK_API_URL's
// default, secrets from env or from files, and an unreadable file named without its content.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { makeSlackClient, slackSigningSecret } from '../../src/connectors/slack/from-config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'doco-slack-config-'));
  await chmod(dir, 0o755);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('Slack configuration', () => {
  it('defaults SLACK_API_URL to https://slack.com/api and turns nothing on without secrets', () => {
    const config = loadConfig({});
    expect(config.slack.apiUrl).toBe('https://slack.com/api');
    expect(makeSlackClient(config)).toBeUndefined();
    expect(slackSigningSecret(config)).toBeUndefined();
    expect(loadConfig({ SLACK_API_URL: 'http://127.0.0.1:9/api/' }).slack.apiUrl).toBe('http://127.0.0.1:9/api');
  });

  it('reads the token and signing secret from env or files (a file wins, trimmed)', async () => {
    await writeFile(path.join(dir, 'secret'), 'from-a-file\n');
    expect(slackSigningSecret(loadConfig({ SLACK_SIGNING_SECRET: 'from-env' }))).toBe('from-env');
    expect(slackSigningSecret(loadConfig({ SLACK_SIGNING_SECRET: 'from-env', SLACK_SIGNING_SECRET_FILE: path.join(dir, 'secret') }))).toBe(
      'from-a-file',
    );
    expect(makeSlackClient(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-x' }))).toBeDefined();
  });

  it('a bad SLACK_API_URL is a config error; an unreadable secret file names the file, never a secret', () => {
    expect(() => loadConfig({ SLACK_API_URL: 'not a url', SLACK_BOT_TOKEN: 'xoxb-never-quoted' })).toThrow(/SLACK_API_URL: must be a URL/);
    const missing = path.join(dir, 'nope');
    expect(() => makeSlackClient(loadConfig({ SLACK_BOT_TOKEN_FILE: missing }))).toThrow(
      `cannot read SLACK_BOT_TOKEN_FILE from ${missing}: ENOENT`,
    );
    try {
      loadConfig({ SLACK_API_URL: 'not a url', SLACK_BOT_TOKEN: 'xoxb-never-quoted' });
    } catch (err) {
      expect((err as Error).message).not.toContain('xoxb-never-quoted');
    }
  });
});
