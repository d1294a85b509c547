// doco_get: a record with its edges and its whole history.
import * as v from 'valibot';
import { edgesOfNode, getNode, listNodeVersions } from '../../../graph/read-nodes.js';
import { RecordIdSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import type { McpTool } from '../tool.js';

const GetInputSchema = v.strictObject({ id: RecordIdSchema });

export const getTool: McpTool = {
  name: 'doco_get',
  description: 'Read one record by id, with its edges and every earlier version (each with its hash and changeset).',
  inputSchema: GetInputSchema,
  admits: { principals: ['person', 'agent'], scope: 'read' },
  async handle(deps, auth, args) {
    const { id } = parseInput(GetInputSchema, args, 'doco_get');
    const [node, edges, versions] = await Promise.all([
      getNode(deps.db, auth.workspaceId, id),
      edgesOfNode(deps.db, auth.workspaceId, id),
      listNodeVersions(deps.db, auth.workspaceId, id),
    ]);
    return { node, edges, versions };
  },
};
