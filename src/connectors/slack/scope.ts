// Where a Slack channel's threads go: a collection per channel (made from the documentation
// template on first use), written as the `slack` principal; and the workspace URL permalinks
// are made from (auth.test, asked once; without a bot token, slack.com's own archive links).
import { AppError } from '../../errors.js';
import { ensurePrincipal } from '../../auth/workspaces.js';
import { ensureItemCollection, type ItemScope } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import type { ConnectorRow } from '../store.js';
import type { SlackClient } from './client.js';

export const SLACK_PRINCIPAL = 'slack';
const TEMPLATE = 'documentation';
const FALLBACK_TEAM_URL = 'https://slack.com/';

export interface SlackTarget {
  scope: ItemScope;
  teamId: string;
  channel: string;
  teamUrl: string;
}

/** `C0123ABC` → `slack-c0123abc`. */
export const channelCollectionSlug = (channel: string) =>
  `slack-${channel.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`.slice(0, 63).replace(/-+$/, '');

const teamUrls = new WeakMap<SlackClient, Map<string, Promise<string>>>();

/** The workspace URL of the bot token, checked to be the connector's team; asked once per client. */
export function teamUrl(client: SlackClient | undefined, teamId: string): Promise<string> {
  if (!client) return Promise.resolve(FALLBACK_TEAM_URL);
  let byTeam = teamUrls.get(client);
  if (!byTeam) teamUrls.set(client, (byTeam = new Map()));
  let url = byTeam.get(teamId);
  if (!url) {
    url = client.authTest().then((a) => {
      if (a.team_id !== teamId) throw new AppError('unavailable', `SLACK_BOT_TOKEN belongs to the Slack team ${a.team_id}, not ${teamId}`);
      return a.url || FALLBACK_TEAM_URL;
    });
    // A failure is not kept: the next call asks again.
    url.catch(() => byTeam.delete(teamId));
    byTeam.set(teamId, url);
  }
  return url;
}

export async function slackTarget(deps: ConnectorDeps, connector: ConnectorRow, channel: string): Promise<SlackTarget> {
  const collection = await ensureItemCollection(
    deps.db,
    connector.workspace_id,
    channelCollectionSlug(channel),
    TEMPLATE,
    `Threads of the Slack channel ${channel}, kept in step by the Slack connector.`,
    `Slack ${channel}`,
  );
  const principalId = await ensurePrincipal(deps.db, connector.workspace_id, SLACK_PRINCIPAL, 'connector');
  return {
    teamId: connector.routing_key,
    channel,
    teamUrl: await teamUrl(deps.slack, connector.routing_key),
    scope: { workspaceId: connector.workspace_id, principalId, kind: 'slack', collectionId: collection.id, connectorId: connector.id },
  };
}

export function requireSlack(deps: ConnectorDeps): SlackClient {
  if (!deps.slack)
    throw new AppError('unavailable', 'the Slack bot token is not configured: set SLACK_BOT_TOKEN (or SLACK_BOT_TOKEN_FILE)');
  return deps.slack;
}
