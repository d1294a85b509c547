// A Slack app for tests: the fake Web API with a team and its bot token, and Events API
// requests signed the documented way (v0 = HMAC-SHA256 of `v0:{timestamp}:{body}`), computed
// here with node:crypto, not with the code under test.
import { createHmac } from 'node:crypto';
import { FakeSlack } from './fake-slack.js';

export const TEAM_ID = 'T0TESTTEAM';
export const BOT_TOKEN = 'xoxb-fake-bot-token-for-tests';
export const SIGNING_SECRET = 'slack-signing-secret-not-a-real-one';

export const fakeSlack = () => new FakeSlack({ teamId: TEAM_ID, token: BOT_TOKEN });

export const slackSignature = (secret: string, timestamp: string, body: string) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

let events = 0;

/** The headers and body Slack sends for one event_callback (or any envelope given whole). */
export function slackEvent(
  event: Record<string, unknown>,
  opts: {
    secret?: string;
    eventId?: string;
    timestamp?: number;
    signature?: string;
    team?: string;
    retryNum?: number;
    envelope?: Record<string, unknown>;
  } = {},
) {
  const eventId = opts.eventId ?? `Ev0TEST${String(++events).padStart(6, '0')}`;
  const body = JSON.stringify(
    opts.envelope ?? {
      token: 'x',
      team_id: opts.team ?? TEAM_ID,
      api_app_id: 'A0TEST',
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      event,
    },
  );
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    eventId,
    body,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': opts.signature ?? slackSignature(opts.secret ?? SIGNING_SECRET, timestamp, body),
      ...(opts.retryNum ? { 'x-slack-retry-num': String(opts.retryNum), 'x-slack-retry-reason': 'http_timeout' } : {}),
    },
  };
}
