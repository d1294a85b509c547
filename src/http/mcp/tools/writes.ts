// doco_capture, doco_relate, doco_changeset: the write path over MCP.
import type { AuthContext } from '../../../auth/tokens.js';
import type { WriteContext } from '../../../graph/apply-changeset.js';
import { CaptureInputSchema, ChangesetInputSchema, RelateInputSchema } from '../../../graph/schemas.js';
import { capture, changeset, relate } from '../../../graph/writes.js';
import type { McpTool } from '../tool.js';

/** Agents write here too: that is how they propose, and their writes wait for review (sql/agent_review.sql). */
const WRITERS = { principals: ['person', 'agent'], scope: 'write' } as const;

const mcpContext = (auth: AuthContext): WriteContext => ({ workspaceId: auth.workspaceId, principalId: auth.principalId, source: 'mcp' });

export const captureTool: McpTool = {
  name: 'doco_capture',
  description:
    'Write one record (rule, decision, intent, log, reference, …) into a collection. Policies run on the write; the verdicts come back with the new record, its version and changeset id.',
  inputSchema: CaptureInputSchema,
  admits: WRITERS,
  handle: (deps, auth, args) => capture(deps, mcpContext(auth), args),
};

export const relateTool: McpTool = {
  name: 'doco_relate',
  description:
    'Add one typed edge between two records (flows_to, supports, constrained_by, attributed_to, has_parent, derived_from, replaces, relates_to).',
  inputSchema: RelateInputSchema,
  admits: WRITERS,
  handle: (deps, auth, args) => relate(deps, mcpContext(auth), args),
};

export const changesetTool: McpTool = {
  name: 'doco_changeset',
  description:
    'Apply up to 50 operations in order, all or nothing: create, relate, append, activate, queue, retire, supersede (activate, queue and retire also take an edge id, e.g. to withdraw a relation it proposed). An operation may name a record created earlier in the same changeset as "$alias". Supersede creates the new record, links it with replaces and retires the old one; the new record keeps the body fields of the old one that it does not restate (null drops one), and the touches of the old one.',
  inputSchema: ChangesetInputSchema,
  admits: WRITERS,
  handle: (deps, auth, args) => changeset(deps, mcpContext(auth), args),
};
