// The Slack connector's secrets, read once at start-up, and the client built from them. Without
// SLACK_BOT_TOKEN there is no client (the sync fails with a clear message, events still work);
// without SLACK_SIGNING_SECRET POST /webhooks/slack/events answers 503.
import type { Config } from '../../config/environment.js';
import { SlackClient } from './client.js';
import { readSecret } from '../../config/secret-file.js';

export const slackSigningSecret = (config: Config): string | undefined =>
  readSecret(config.slack.signingSecret, 'SLACK_SIGNING_SECRET_FILE');

export function makeSlackClient(config: Config): SlackClient | undefined {
  const token = readSecret(config.slack.botToken, 'SLACK_BOT_TOKEN_FILE');
  return token ? new SlackClient({ apiUrl: config.slack.apiUrl, token }) : undefined;
}
