// The request shapes of every write (REST bodies, MCP arguments and CLI input alike), as valibot
// schemas (src/lib/validate.ts turns their issues into a validation_failed AppError).
import * as v from 'valibot';
import { EDGE_TYPES, NODE_TYPES } from '../db/schema.js';
import { ID_PATTERN } from '../lib/ids.js';
import { jsonObject } from '../lib/validate.js';
import { EDGES_PAGE, LIMITS, VERSIONS_PAGE } from './limits.js';

export const SlugSchema = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a slug: lowercase letters, digits and hyphens, at most 63 characters'),
);
export const RecordIdSchema = v.pipe(
  v.string(),
  v.regex(
    ID_PATTERN,
    'must be a record id: its type in lowercase, an underscore and 26 capital letters and digits, such as decision_01K8Z3QH4V6X9M2T7R5B3N8P1D',
  ),
);
/** A version number as a URL carries it (`/versions/3`, `?before=3`). */
export const VersionNumberSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,8}$/, 'must be a version number (1, 2, …)'),
  v.transform(Number),
);
/** How many versions one read of a history returns, as a URL carries it. */
export const VersionsLimitSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,2}$/, `must be a number of versions from 1 to ${VERSIONS_PAGE.max}`),
  v.transform(Number),
  v.maxValue(VERSIONS_PAGE.max, `must be a number of versions from 1 to ${VERSIONS_PAGE.max}`),
);
export const EdgeIdSchema = v.pipe(
  v.string(),
  v.regex(/^edge_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an edge id: edge_ and 26 capital letters and digits'),
);
/** How many of a record's edges one read returns, as a URL carries it. */
export const EdgesLimitSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,2}$/, `must be a number of edges from 1 to ${EDGES_PAGE.max}`),
  v.transform(Number),
  v.maxValue(EDGES_PAGE.max, `must be a number of edges from 1 to ${EDGES_PAGE.max}`),
);
const AliasSchema = v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_-]{0,62}$/, 'must be a name of letters, digits, _ and -'));
/** An id, or "$alias" naming a record created earlier in the same changeset. */
const RefSchema = v.pipe(
  v.string(),
  v.regex(/^(\$[A-Za-z][A-Za-z0-9_-]{0,62}|[a-z]+_[0-9A-HJKMNP-TV-Z]{26})$/, 'must be a record id or "$alias"'),
);
const TitleSchema = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(LIMITS.titleChars, `must be at most ${LIMITS.titleChars} characters`),
);
const ProseSchema = v.pipe(v.string(), v.maxLength(LIMITS.proseChars, `must be at most ${LIMITS.proseChars} characters`));
const BodySchema = v.pipe(
  jsonObject(),
  v.check((b) => Buffer.byteLength(JSON.stringify(b)) <= LIMITS.bodyJsonBytes, `must serialise to at most ${LIMITS.bodyJsonBytes} bytes`),
);
const NodeTypeSchema = v.picklist(NODE_TYPES, `must be one of ${NODE_TYPES.join(', ')}`);
const EdgeTypeSchema = v.picklist(EDGE_TYPES, `must be one of ${EDGE_TYPES.join(', ')}`);
/** A new record or edge starts before retirement: retiring is a later, separate act. */
const StartLifecycleSchema = v.picklist(
  ['drafting', 'queued', 'active'],
  'must be one of drafting, queued, active (retire is a later operation)',
);
/** What a create very close to an active record gets: a possible_duplicate verdict, or refused (conflict). */
export const DuplicateModeSchema = v.picklist(
  ['warn', 'block'],
  'must be "warn" (a possible_duplicate verdict) or "block" (refused as conflict)',
);

export const CollectionInputSchema = v.strictObject({
  slug: SlugSchema,
  template: SlugSchema,
  goal: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(LIMITS.goalChars)),
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  duplicates: v.optional(DuplicateModeSchema),
});
export type CollectionInput = v.InferOutput<typeof CollectionInputSchema>;

const recordFields = {
  node_type: NodeTypeSchema,
  title: v.optional(TitleSchema),
  prose: v.optional(ProseSchema),
  body: v.optional(BodySchema),
};

export const CaptureInputSchema = v.strictObject({
  collection: SlugSchema,
  ...recordFields,
  lifecycle: v.optional(StartLifecycleSchema),
  on_duplicate: v.optional(DuplicateModeSchema),
});
export type CaptureInput = v.InferOutput<typeof CaptureInputSchema>;

export const RelateInputSchema = v.strictObject({
  from: RecordIdSchema,
  to: RecordIdSchema,
  edge_type: EdgeTypeSchema,
  lifecycle: v.optional(StartLifecycleSchema),
});
export type RelateInput = v.InferOutput<typeof RelateInputSchema>;

const CreateOp = v.strictObject({
  op: v.literal('create'),
  alias: v.optional(AliasSchema),
  ...recordFields,
  lifecycle: v.optional(StartLifecycleSchema),
});
const RelateOp = v.strictObject({
  op: v.literal('relate'),
  from: RefSchema,
  to: RefSchema,
  edge_type: EdgeTypeSchema,
  lifecycle: v.optional(StartLifecycleSchema),
});
const AppendOp = v.strictObject({
  op: v.literal('append'),
  target: RefSchema,
  prose: v.pipe(ProseSchema, v.minLength(1, 'must not be empty')),
});
/**
 * `version`: the version the caller read, for a move that must not outrun a change it has not
 * seen (a reviewer approving what an agent rewrote after the page was loaded): the move is
 * refused with 409 when the record or edge has another version by the time it is made.
 */
const LifecycleOp = (op: 'activate' | 'queue' | 'retire') =>
  v.strictObject({
    op: v.literal(op),
    target: RefSchema,
    version: v.optional(
      v.pipe(
        v.number('must be a version number'),
        v.integer('must be a version number'),
        v.minValue(1, 'must be 1 or more'),
        // A version is a Postgres integer: a larger number was a 500 from its cast (a hostile review).
        v.maxValue(2_147_483_647, 'must be a version number (at most 2147483647)'),
      ),
    ),
  });
const SupersedeOp = v.strictObject({ op: v.literal('supersede'), target: RefSchema, alias: v.optional(AliasSchema), ...recordFields });

export const OperationSchema = v.variant(
  'op',
  [CreateOp, RelateOp, AppendOp, LifecycleOp('activate'), LifecycleOp('queue'), LifecycleOp('retire'), SupersedeOp],
  'op must be one of create, relate, append, activate, queue, retire, supersede',
);
export type Operation = v.InferOutput<typeof OperationSchema>;

export const ChangesetInputSchema = v.strictObject({
  collection: v.optional(SlugSchema),
  summary: v.optional(v.pipe(v.string(), v.maxLength(500))),
  on_duplicate: v.optional(DuplicateModeSchema),
  operations: v.pipe(
    v.array(OperationSchema),
    v.minLength(1, 'must hold at least one operation'),
    v.maxLength(LIMITS.operationsPerChangeset, `must hold at most ${LIMITS.operationsPerChangeset} operations`),
  ),
});
export type ChangesetInput = v.InferOutput<typeof ChangesetInputSchema>;
