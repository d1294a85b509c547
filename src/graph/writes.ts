// The three write entry points every interface calls (REST, MCP, CLI): capture one record,
// relate two, or apply a changeset. Each takes raw input and validates it here, once.
import { applyChangeset, type ChangesetResult, type WriteContext, type WriteDeps } from './apply-changeset.js';
import type { Verdict } from './verdicts.js';
import type { EdgeView, NodeView } from './read-nodes.js';
import { CaptureInputSchema, ChangesetInputSchema, RelateInputSchema } from './schemas.js';
import { parseInput } from '../lib/validate.js';

export interface CaptureResult {
  node: NodeView;
  version: number;
  changeset_id: string;
  verdicts: Verdict[];
}

export interface RelateResult {
  edge: EdgeView;
  version: number;
  changeset_id: string;
  verdicts: Verdict[];
}

export async function capture(deps: WriteDeps, ctx: WriteContext, raw: unknown): Promise<CaptureResult> {
  const { collection, lifecycle, on_duplicate, ...record } = parseInput(CaptureInputSchema, raw, 'capture');
  const result = await applyChangeset(deps, ctx, {
    collection,
    ...(on_duplicate ? { on_duplicate } : {}),
    operations: [{ op: 'create', ...record, ...(lifecycle ? { lifecycle } : {}) }],
  });
  const node = result.nodes[0]!;
  return { node, version: node.version, changeset_id: result.changeset_id, verdicts: result.verdicts };
}

export async function relate(deps: WriteDeps, ctx: WriteContext, raw: unknown): Promise<RelateResult> {
  const input = parseInput(RelateInputSchema, raw, 'relate');
  const result = await applyChangeset(deps, ctx, { operations: [{ op: 'relate', ...input }] });
  const edge = result.edges[0]!;
  return { edge, version: edge.version, changeset_id: result.changeset_id, verdicts: result.verdicts };
}

export async function changeset(deps: WriteDeps, ctx: WriteContext, raw: unknown): Promise<ChangesetResult> {
  return applyChangeset(deps, ctx, parseInput(ChangesetInputSchema, raw, 'changeset'));
}

export type { WriteContext, WriteDeps, ChangesetResult };
