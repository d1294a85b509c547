// Applies what happened to a channel's messages (from webhooks or the sync) to their threads in
// one transaction: each thread locked, its messages kept or taken out (an unchanged message
// writes nothing; one older than what is kept, by its edited.ts or ts, is refused; a deleted one
// leaves a tombstone), a thread whose root was deleted retired, and every thread that changed
// rewritten as its record — with the sync's cursor, when given, committed alongside.
import { dropAllComments, dropComment, keepComments, loadThread, type CommentKey, type CommentToKeep } from '../comments.js';
import { addReports, emptyReport, lockItems, retireItemIn, writeItemsIn, type ItemContent, type ItemsReport } from '../items.js';
import { writeState } from '../store.js';
import type { Sql } from '../../db/connect.js';
import { laterTs, threadId, tsToTimestamp, type MessageAction } from './messages.js';
import { permalink, threadRecord } from './records.js';
import type { SlackTarget } from './scope.js';

/** A root message is the thread's own text: it may be longer than a reply. */
const ROOT_CHARS = 8_000;

export interface ApplyOptions {
  summary: string;
  /** The newest reply the sync has read, per thread ts (recorded even when nothing else changed). */
  marks?: Map<string, string>;
  state?: Record<string, unknown>;
}

export async function applyMessages(sql: Sql, target: SlackTarget, actions: MessageAction[], opts: ApplyOptions): Promise<ItemsReport> {
  const { scope, channel } = target;
  const key = (threadTs: string): CommentKey => ({
    workspaceId: scope.workspaceId,
    kind: 'slack',
    externalId: threadId(channel, threadTs),
  });
  const acted = actions.filter((a): a is Exclude<MessageAction, { op: 'skip' }> => a.op !== 'skip');
  const threads = new Set([...acted.map((a) => a.threadTs), ...(opts.marks?.keys() ?? [])]);
  if (!threads.size && !opts.state) return emptyReport();
  return sql.begin(async (tx) => {
    await lockItems(
      tx,
      scope,
      [...threads].map((t) => threadId(channel, t)),
    );
    let report = emptyReport();
    const retired = new Set<string>();
    for (const a of acted) {
      if (a.op !== 'retire' || retired.has(a.threadTs)) continue;
      retired.add(a.threadTs);
      report = addReports(report, await retireItemIn(tx, scope, threadId(channel, a.threadTs), opts.summary));
      await dropAllComments(tx, key(a.threadTs));
    }
    const keeps: CommentToKeep[] = acted.flatMap((a) =>
      a.op === 'keep' && !retired.has(a.threadTs)
        ? [
            {
              key: key(a.threadTs),
              commentId: a.ts,
              comment: { author: a.user, body: a.text },
              remoteAt: tsToTimestamp(a.changedTs),
              ...(a.ts === a.threadTs ? { maxChars: ROOT_CHARS } : {}),
            },
          ]
        : [],
    );
    const kept = await keepComments(tx, keeps);
    report.secrets.push(...kept.secrets.map((s) => ({ external_id: s.external_id, kind: s.kind, field: `message ${s.comment_id}` })));
    const changed = new Set<string>();
    for (const t of threads) if (kept.changed.has(threadId(channel, t))) changed.add(t);
    for (const a of acted)
      if (
        a.op === 'drop' &&
        !retired.has(a.threadTs) &&
        (await dropComment(tx, key(a.threadTs), a.ts, a.deletedTs && tsToTimestamp(a.deletedTs)))
      )
        changed.add(a.threadTs);
    for (const t of opts.marks?.keys() ?? []) if (!retired.has(t)) changed.add(t);
    const records: ItemContent[] = [];
    for (const t of [...changed].sort()) {
      const thread = await loadThread(tx, key(t), t);
      const newestReply = acted.reduce<string | undefined>(
        (m, a) => (a.op === 'keep' && a.threadTs === t && a.ts !== t ? laterTs(m, a.ts) : m),
        opts.marks?.get(t),
      );
      records.push(
        threadRecord(
          channel,
          t,
          thread,
          permalink(target.teamUrl, channel, t),
          await latestReply(tx, scope.workspaceId, threadId(channel, t), newestReply),
        ),
      );
    }
    report = addReports(report, await writeItemsIn(tx, scope, records, { summary: opts.summary }));
    if (opts.state) await writeState(tx, scope.connectorId, opts.state);
    return report;
  });
}

/** The thread's sync mark: the newest reply read so far, never moved back. */
async function latestReply(
  tx: Parameters<typeof keepComments>[0],
  workspaceId: string,
  externalId: string,
  seen: string | undefined,
): Promise<string | undefined> {
  const [row] = await tx<
    { mark: string | null }[]
  >`select meta->>'latest_reply' as mark from doco.connector_items where workspace_id = ${workspaceId} and kind = 'slack' and external_id = ${externalId}`;
  const mark = row?.mark ?? undefined;
  return seen ? laterTs(mark, seen) : mark;
}
