// The per-minute sync (docs/connectors.md, Slack) that keeps a channel whole when events were missed:
// conversations.history from the channel's cursor (the newest ts seen) — reaching back over the
// last REPLY_WINDOW_DAYS as well, where a parent's reply_count/latest_reply shows which threads
// grew — and conversations.replies for each thread whose latest_reply passed its mark. History
// comes newest first, so the cursor moves only with the commit of the last page. A connector
// without a channel syncs every public channel the bot is a member of (bar those with a
// connector of their own).
import { addReports, emptyReport, findItemsByMeta, type ItemsReport } from '../items.js';
import type { ConnectorDeps, SweepReport } from '../kind.js';
import { listConnectors, readState, type ConnectorRow } from '../store.js';
import type { SlackClient, SlackMessage } from './client.js';
import { isoToTs, laterTs, messageAction, type MessageAction } from './messages.js';
import { requireSlack, slackTarget, type SlackTarget } from './scope.js';
import { applyMessages } from './threads.js';

/** How far back the sync re-reads parents for new replies in older threads. */
export const REPLY_WINDOW_DAYS = 7;

export const cursorKey = (channel: string) => `${channel}_since`;

export async function sweepSlack(deps: ConnectorDeps, connector: ConnectorRow): Promise<SweepReport> {
  const client = requireSlack(deps);
  const channels = connector.target ? [connector.target] : await memberChannels(deps, client, connector);
  const state = await readState(deps.sql, connector.id);
  let items = emptyReport();
  const failures: string[] = [];
  // One channel failing (the bot was removed from it) does not hold the others back.
  for (const channel of channels) {
    try {
      items = addReports(items, await syncChannel(deps, client, await slackTarget(deps, connector, channel), state[cursorKey(channel)]));
    } catch (err) {
      if (channels.length === 1) throw err;
      failures.push(`${channel}: ${(err as Error).message}`);
    }
  }
  if (failures.length)
    throw new Error(`${failures.length} of ${channels.length} channels failed (the others synced): ${failures.join('; ')}`);
  return { items, notModified: 0 };
}

/** The public channels the bot is in, without those another connector of this team copies. */
async function memberChannels(deps: ConnectorDeps, client: SlackClient, connector: ConnectorRow): Promise<string[]> {
  const own = new Set(
    (await listConnectors(deps.sql, undefined, 'slack'))
      .filter((c) => c.routing_key === connector.routing_key && c.target)
      .map((c) => c.target),
  );
  const found: string[] = [];
  await client.eachPage(
    'conversations.list',
    (cursor) => client.channels(cursor),
    async (page) => {
      for (const c of page.channels) if (c.is_member && !c.is_archived && !own.has(c.id)) found.push(c.id);
    },
  );
  return found;
}

async function syncChannel(deps: ConnectorDeps, client: SlackClient, target: SlackTarget, stored: unknown): Promise<ItemsReport> {
  const { channel } = target;
  const cursor = typeof stored === 'string' ? stored : undefined;
  const windowStart = isoToTs(Date.now() - REPLY_WINDOW_DAYS * 86_400_000);
  const oldest = cursor && Number(cursor) < Number(windowStart) ? cursor : cursor ? windowStart : undefined;
  const marks = new Map(
    (await findItemsByMeta(deps.sql, target.scope.workspaceId, 'slack', { channel })).map((i) => [
      String(i.meta.thread_ts),
      typeof i.meta.latest_reply === 'string' ? i.meta.latest_reply : undefined,
    ]),
  );
  let newest = cursor;
  let report = emptyReport();
  await client.eachPage(
    `conversations.history of ${channel}`,
    (c) => client.history(channel, { ...(oldest ? { oldest } : {}), ...(c ? { cursor: c } : {}) }),
    async (page, last) => {
      const actions: MessageAction[] = [];
      const read = new Map<string, string>();
      for (const m of page.messages) {
        newest = laterTs(newest, m.ts);
        const action = messageAction(channel, m);
        if (action.op !== 'keep') continue;
        actions.push(action);
        if (action.ts !== action.threadTs || !grew(m, marks.get(action.threadTs))) continue;
        actions.push(...(await threadReplies(client, channel, m.ts, marks.get(action.threadTs))));
        read.set(action.threadTs, m.latest_reply!);
      }
      const state = last && newest && newest !== cursor ? { [cursorKey(channel)]: newest } : undefined;
      report = addReports(
        report,
        await applyMessages(deps.sql, target, actions, { summary: `slack sync of ${channel}`, marks: read, ...(state ? { state } : {}) }),
      );
    },
  );
  return report;
}

/** A parent whose newest reply is past the thread's mark (or a thread never read). */
const grew = (m: SlackMessage, mark: string | undefined) =>
  (m.reply_count ?? 0) > 0 && !!m.latest_reply && (!mark || Number(m.latest_reply) > Number(mark));

/** The thread's replies after `mark` (all of them for a thread never read); the parent, which comes first, is read from history. */
async function threadReplies(client: SlackClient, channel: string, ts: string, mark: string | undefined): Promise<MessageAction[]> {
  const actions: MessageAction[] = [];
  await client.eachPage(
    `conversations.replies of ${channel} ${ts}`,
    (c) => client.replies(channel, ts, { ...(mark ? { oldest: mark } : {}), ...(c ? { cursor: c } : {}) }),
    async (page) => {
      for (const r of page.messages) {
        if (r.ts === ts) continue;
        const action = messageAction(channel, r);
        if (action.op === 'keep') actions.push({ ...action, threadTs: ts });
      }
    },
  );
  return actions;
}
