// doco_get: a record with its edges and its history, a page at a time.
import * as v from 'valibot';
import { edgesOfNode, getNode, listNodeVersions } from '../../../graph/read-nodes.js';
import { VERSIONS_PAGE } from '../../../graph/limits.js';
import { RecordIdSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import type { McpTool } from '../tool.js';

const GetInputSchema = v.strictObject({
  id: RecordIdSchema,
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(VERSIONS_PAGE.max))),
  before: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

export const getTool: McpTool = {
  name: 'doco_get',
  description: `Read one record by id, with its edges and its newest versions (each with its hash and changeset): ${VERSIONS_PAGE.default} unless limit says (at most ${VERSIONS_PAGE.max}); version_count says how many there are, and before, given back, reads the older ones.`,
  inputSchema: GetInputSchema,
  admits: { principals: ['person', 'agent'], scope: 'read' },
  async handle(deps, auth, args) {
    const { id, ...page } = parseInput(GetInputSchema, args, 'doco_get');
    const [node, edges, history] = await Promise.all([
      getNode(deps.db, auth.workspaceId, id),
      edgesOfNode(deps.db, auth.workspaceId, id),
      listNodeVersions(deps.db, auth.workspaceId, id, page),
    ]);
    return { node, edges, ...history };
  },
};
