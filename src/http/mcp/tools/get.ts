// doco_get: a record with its edges and its history, a page at a time.
import * as v from 'valibot';
import { edgesOfNode, getNode, listNodeVersions } from '../../../graph/read-nodes.js';
import { EDGES_PAGE, VERSIONS_PAGE } from '../../../graph/limits.js';
import { EdgeIdSchema, RecordIdSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import type { McpTool } from '../tool.js';

const GetInputSchema = v.strictObject({
  id: RecordIdSchema,
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(VERSIONS_PAGE.max))),
  // As REST's ?before= (VersionNumberSchema): 1e300 reached Postgres as "1e+300" and answered `internal`.
  before: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(999_999_999, 'must be a version number (1, 2, …)'))),
  edges_limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(EDGES_PAGE.max))),
  edges_after: v.optional(EdgeIdSchema),
});

export const getTool: McpTool = {
  name: 'doco_get',
  description: `Read one record by id, with its edges (the first ${EDGES_PAGE.default} in the order they were made unless edges_limit says, at most ${EDGES_PAGE.max}; edge_count says how many, and edges_after, given back, reads the next) and its newest versions (each with its hash and changeset): ${VERSIONS_PAGE.default} unless limit says (at most ${VERSIONS_PAGE.max}); version_count says how many there are, and before, given back, reads the older ones.`,
  inputSchema: GetInputSchema,
  admits: { principals: ['person', 'agent'], scope: 'read' },
  async handle(deps, auth, args) {
    const { id, edges_limit, edges_after, ...page } = parseInput(GetInputSchema, args, 'doco_get');
    const [node, edges, history] = await Promise.all([
      getNode(deps.db, auth.workspaceId, id),
      edgesOfNode(deps.db, auth.workspaceId, id, {
        ...(edges_limit ? { limit: edges_limit } : {}),
        ...(edges_after ? { after: edges_after } : {}),
      }),
      listNodeVersions(deps.db, auth.workspaceId, id, page),
    ]);
    return { node, ...edges, ...history };
  },
};
