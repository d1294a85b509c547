// doco_brief and doco_search: retrieval over MCP.
import * as v from 'valibot';
import { composeBrief } from '../../../brief/compose.js';
import { renderBrief } from '../../../brief/render.js';
import { BriefRequestSchema } from '../../../brief/types.js';
import { parseInput } from '../../../lib/validate.js';
import { searchRecords, SearchQuerySchema } from '../../../retrieval/search.js';
import type { McpTool } from '../tool.js';

const BriefToolSchema = v.strictObject({
  ...BriefRequestSchema.entries,
  format: v.optional(v.picklist(['json', 'text']), 'json'),
});

export const briefTool: McpTool = {
  name: 'doco_brief',
  description:
    'What applies here? Before acting, send what you are about to do (about) and the files, issues or records it touches (touching). Returns the records that must be obeyed, what is already decided, what is in motion, background and gaps, fitted to the token budget, each with why it is there. format "text" gives the plain-text rendering.',
  inputSchema: BriefToolSchema,
  admits: { principals: ['person', 'agent'], scope: 'read' },
  async handle(deps, auth, args) {
    const { format, ...req } = parseInput(BriefToolSchema, args, 'doco_brief');
    const brief = await composeBrief(deps, { workspaceId: auth.workspaceId, principalId: auth.principalId }, req);
    return format === 'text' ? { text: renderBrief(brief), brief_id: brief.brief_id, receipt: brief.receipt } : brief;
  },
};

/** Strict, as every other tool's arguments are: a misspelt filter is refused, not ignored. */
const SearchToolSchema = v.strictObject(SearchQuerySchema.entries);

export const searchTool: McpTool = {
  name: 'doco_search',
  description:
    "Hybrid search over the workspace's records (dense + BM25 + full text), optionally filtered by record type, shape (e.g. architecturePrinciple) or collection. One result per record, best first.",
  inputSchema: SearchToolSchema,
  admits: { principals: ['person', 'agent'], scope: 'read' },
  async handle(deps, auth, args) {
    return searchRecords(deps, auth.workspaceId, parseInput(SearchToolSchema, args, 'doco_search'));
  },
};
