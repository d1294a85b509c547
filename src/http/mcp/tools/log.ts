// doco_log: an agent chat ends as one `log` record in the workspace's agents-chats collection,
// `relates_to` the chat it continues, and gets back the receipt line that links the brief it
// read and every record it wrote.
import * as v from 'valibot';
import { isAgentName } from '../../../auth/principal-name.js';
import type { AuthContext } from '../../../auth/tokens.js';
import type { AppDeps } from '../../deps.js';
import { receiptLine } from '../../../brief/render.js';
import { getStoredBrief } from '../../../brief/stored.js';
import { AppError } from '../../../errors.js';
import type { WriteContext } from '../../../graph/apply-changeset.js';
import { createCollection, findCollection } from '../../../graph/collections.js';
import { LIMITS } from '../../../graph/limits.js';
import { findNodes, idsWrittenBy, type NodeView } from '../../../graph/read-nodes.js';
import { RecordIdSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import { changeset } from '../../../graph/writes.js';
import { refuseSecretsInFields } from '../../../graph/secrets-guard.js';
import type { McpTool } from '../tool.js';

export const CHAT_LOG_COLLECTION = 'agents-chats';
const MAX_WRITTEN = 100;

const LogInputSchema = v.strictObject({
  title: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(LIMITS.titleChars))),
  summary: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(LIMITS.proseChars)),
  session_id: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200))),
  continues: v.optional(RecordIdSchema),
  brief_id: v.optional(RecordIdSchema),
  written: v.optional(v.pipe(v.array(RecordIdSchema), v.maxLength(MAX_WRITTEN, `must list at most ${MAX_WRITTEN} records`))),
});
type LogInput = v.InferOutput<typeof LogInputSchema>;

export interface LogResult {
  node: NodeView;
  changeset_id: string;
  verdicts: unknown[];
  receipt: string;
}

/** `Decision Refunds go back to the card (decision_01K8…)`. */
export function writtenEntry(node: Pick<NodeView, 'id' | 'node_type' | 'title'>): string {
  const type = node.node_type.charAt(0).toUpperCase() + node.node_type.slice(1);
  return `${type} ${node.title} (${node.id})`;
}

/** The brief's receipt (or a bare prefix without one), then ` · ✍️ ` and the records written. */
export function chatReceipt(briefReceipt: string | undefined, written: Pick<NodeView, 'id' | 'node_type' | 'title'>[]): string {
  return `${briefReceipt ?? '[🔮 Doco]'} · ✍️ ${written.map(writtenEntry).join(', ')}`;
}

async function ensureChatCollection(deps: AppDeps, workspaceId: string): Promise<void> {
  if (await findCollection(deps.db, workspaceId, CHAT_LOG_COLLECTION)) return;
  const template = await deps.db
    .selectFrom('doco.templates')
    .select('default_goal')
    .where('slug', '=', CHAT_LOG_COLLECTION)
    .executeTakeFirst();
  if (!template) throw new AppError('internal', `the ${CHAT_LOG_COLLECTION} template is missing`);
  try {
    await createCollection(deps.db, workspaceId, { slug: CHAT_LOG_COLLECTION, template: CHAT_LOG_COLLECTION, goal: template.default_goal });
  } catch (err) {
    // Another chat made it first: that is the collection we want.
    if (!(await findCollection(deps.db, workspaceId, CHAT_LOG_COLLECTION))) throw err;
  }
}

export async function writeChatLog(deps: AppDeps, auth: AuthContext, input: LogInput): Promise<LogResult> {
  const ws = auth.workspaceId;
  // Everything is checked before anything is written: an unknown id, or a credential pasted into
  // the summary, leaves no collection behind (the changeset below would refuse it too, later).
  refuseSecretsInFields({ title: input.title, summary: input.summary, session_id: input.session_id }, 'doco_log');
  // An agent's log is its own account: it links a brief it was sent and records it wrote. A
  // person's may speak for others (a chat the person drove through another tool).
  const agent = isAgentName(auth.principalName);
  let briefReceipt: string | undefined;
  if (input.brief_id) {
    const stored = await getStoredBrief(deps.sql, ws, input.brief_id);
    if (agent && stored.principal_id !== auth.principalId)
      throw new AppError('forbidden', `brief ${input.brief_id} was sent to another principal: an agent's log links a brief it read`);
    briefReceipt = stored.brief.receipt ?? receiptLine(stored.brief.stats);
  }
  if (input.continues) {
    const [prev] = await findNodes(deps.db, ws, [input.continues]);
    if (!prev || prev.node_type !== 'log')
      throw new AppError('not_found', `log record ${input.continues} does not exist in this workspace`);
    // A retired chat takes no new relation (sql/lifecycle.sql): refused here, before the chats'
    // collection is made, not by the changeset after it.
    if (prev.lifecycle === 'retired')
      throw new AppError('lifecycle_violation', `log record ${input.continues} is retired: continue a live one, or none`);
  }
  const writtenIds = [...new Set(input.written ?? [])];
  const found = await findNodes(deps.db, ws, writtenIds);
  const missing = writtenIds.filter((id) => !found.some((n) => n.id === id));
  if (missing.length) throw new AppError('not_found', `written record ${missing[0]} does not exist in this workspace`, { missing });
  if (agent) {
    const own = await idsWrittenBy(deps.db, ws, writtenIds, auth.principalId);
    const others = writtenIds.filter((id) => !own.has(id));
    if (others.length)
      throw new AppError(
        'forbidden',
        `written record ${others[0]} has no version by ${auth.principalName}: an agent's log lists records it wrote`,
        {
          others,
        },
      );
  }

  await ensureChatCollection(deps, ws);
  const ctx: WriteContext = { workspaceId: ws, principalId: auth.principalId, source: 'mcp' };
  const body = {
    ...(input.session_id ? { session_id: input.session_id } : {}),
    ...(input.brief_id ? { brief_id: input.brief_id } : {}),
    ...(writtenIds.length ? { written: writtenIds } : {}),
  };
  const result = await changeset(deps, ctx, {
    collection: CHAT_LOG_COLLECTION,
    summary: 'chat log',
    operations: [
      { op: 'create', alias: 'log', node_type: 'log', ...(input.title ? { title: input.title } : {}), prose: input.summary, body },
      ...(input.continues ? [{ op: 'relate', from: '$log', to: input.continues, edge_type: 'relates_to' }] : []),
    ],
  });
  const node = result.nodes.find((n) => n.id === result.aliases.log)!;
  const written = writtenIds.map((id) => found.find((n) => n.id === id)!);
  return { node, changeset_id: result.changeset_id, verdicts: result.verdicts, receipt: chatReceipt(briefReceipt, [...written, node]) };
}

export const logTool: McpTool = {
  name: 'doco_log',
  description:
    'End a chat: write its log (summary, optional title) into the agents-chats collection, linked with relates_to to the log of the chat it continues. Pass the brief you read (brief_id) and the ids of the records you wrote (written); the answer carries the receipt line to end your reply with.',
  inputSchema: LogInputSchema,
  // An agent's log waits for review like its other writes; the agents-chats collection it may
  // make is the fixed one of that template, not a goal of the agent's choosing.
  admits: { principals: ['person', 'agent'], scope: 'write' },
  handle: (deps, auth, args) => writeChatLog(deps, auth, parseInput(LogInputSchema, args, 'doco_log')),
};
