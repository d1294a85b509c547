// Writing the eval corpus into a workspace through the real write path (changesets of at most
// 50 operations, as an importer would): doc sections as `reference` records in a collection
// made from the documentation template, then the hand-written records of a records.json into
// collections made from fitting templates, their relations, their supersessions; then the
// outbox is drained so every record is searchable, and PageRank swept as the worker would.
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { createCollection, findCollection } from '../src/graph/collections.js';
import { LIMITS } from '../src/graph/limits.js';
import { noJudge } from '../src/providers/judge.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox, type DrainReport } from '../src/indexing/drain.js';
import { changeset } from '../src/graph/writes.js';
import type { EvalDoco } from './harness.js';
import { sectionRecord, type DocSection } from '../src/ingest/docs/sections.js';

const NODE_TYPES = ['rule', 'decision', 'reference', 'state', 'action', 'intent', 'idea'] as const;
const EDGE_TYPES = ['flows_to', 'supports', 'constrained_by', 'has_parent', 'derived_from', 'relates_to'] as const;

const RecordSchema = v.strictObject({
  key: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a lowercase key')),
  type: v.picklist(NODE_TYPES),
  /** A template slug; the record goes into the collection made from it (default by type). */
  collection: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/))),
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(LIMITS.titleChars)),
  prose: v.pipe(v.string(), v.minLength(1)),
  body: v.optional(v.record(v.string(), v.unknown())),
  /** Edges from this record to another record's key or a doc section_key. */
  relations: v.optional(v.array(v.strictObject({ edge_type: v.picklist(EDGE_TYPES), to: v.string() }))),
  /** The key of an earlier record this one replaces (it is retired, linked by `replaces`). */
  supersedes: v.optional(v.string()),
});
const RecordsFileSchema = v.strictObject({ records: v.array(RecordSchema) });
export type FixtureRecord = v.InferOutput<typeof RecordSchema>;

export async function readRecordsFile(file: string): Promise<FixtureRecord[]> {
  const parsed = v.safeParse(RecordsFileSchema, JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`).join('; ')}`);
  const keys = new Set<string>();
  for (const r of parsed.output.records) {
    if (keys.has(r.key)) throw new Error(`${file}: record key ${r.key} is used twice`);
    keys.add(r.key);
  }
  for (const r of parsed.output.records) {
    if (r.supersedes && !keys.has(r.supersedes)) throw new Error(`${file}: ${r.key} supersedes unknown key ${r.supersedes}`);
  }
  return parsed.output.records;
}

const DEFAULT_TEMPLATE: Record<FixtureRecord['type'], string> = {
  rule: 'constitution',
  decision: 'product-decisions',
  reference: 'documentation',
  state: 'backlog',
  action: 'backlog',
  intent: 'roadmap',
  idea: 'backlog',
};

const GOALS: Record<string, string> = {
  documentation: "The team's documentation, section by section.",
};

/** The collection made from `template` (its slug is the template's; the constitution exists). */
async function collectionFor(doco: EvalDoco, template: string): Promise<string> {
  if (template === 'constitution') return 'constitution';
  if (!(await findCollection(doco.db, doco.workspaceId, template))) {
    await createCollection(doco.db, doco.workspaceId, { slug: template, template, goal: GOALS[template] ?? `Eval fixture: ${template}.` });
  }
  return template;
}

const BATCH = LIMITS.operationsPerChangeset;
const chunks = <T>(xs: T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

export interface IngestReport {
  /** Target key (section_key or record key) → record id. */
  ids: Map<string, string>;
  /** Record keys retired by a supersession. */
  retired: Set<string>;
  sections: number;
  records: number;
  edges: number;
  drain: DrainReport;
  outboxLeft: number;
}

export async function ingestCorpus(doco: EvalDoco, sections: DocSection[], records: FixtureRecord[]): Promise<IngestReport> {
  const deps = { db: doco.db, judge: noJudge };
  const ctx = { workspaceId: doco.workspaceId, principalId: doco.principalId, source: 'import' as const };
  const ids = new Map<string, string>();

  const docs = await collectionFor(doco, 'documentation');
  for (const batch of chunks(sections, BATCH)) {
    const res = await changeset(deps, ctx, {
      collection: docs,
      summary: 'eval: doc sections',
      operations: batch.map((s) => ({ op: 'create', ...sectionRecord(s) })),
    });
    batch.forEach((s, i) => ids.set(s.section_key, res.results[i]!.id));
  }
  // The manifest the doc ingester keeps beside its records (src/ingest/docs/store.ts): what marks
  // a record as an ingested section, for the alignment scan and docs search alike.
  if (sections.length)
    await doco.sql`
      insert into doco.doc_manifest ${doco.sql(
        sections.map((s) => ({
          workspace_id: doco.workspaceId,
          source: 'fs',
          section_key: s.section_key,
          path: s.path,
          hash: createHash('sha256').update(s.body).digest('hex'),
          node_id: ids.get(s.section_key)!,
        })),
      )}`;

  // Records: first those that replace nothing, grouped by collection, then the supersessions in order.
  const plain = records.filter((r) => !r.supersedes);
  const byTemplate = new Map<string, FixtureRecord[]>();
  for (const r of plain) {
    const t = r.collection ?? DEFAULT_TEMPLATE[r.type];
    byTemplate.set(t, [...(byTemplate.get(t) ?? []), r]);
  }
  const draft = (r: FixtureRecord) => ({ node_type: r.type, title: r.title, prose: r.prose, ...(r.body ? { body: r.body } : {}) });
  for (const [template, recs] of byTemplate) {
    const slug = await collectionFor(doco, template);
    for (const batch of chunks(recs, BATCH)) {
      const res = await changeset(deps, ctx, {
        collection: slug,
        summary: `eval: ${template} records`,
        operations: batch.map((r) => ({ op: 'create', ...draft(r) })),
      });
      batch.forEach((r, i) => ids.set(r.key, res.results[i]!.id));
    }
  }
  const retired = new Set<string>();
  for (const r of records.filter((x) => x.supersedes)) {
    const old = ids.get(r.supersedes!);
    if (!old) throw new Error(`records: ${r.key} supersedes ${r.supersedes}, which is not written yet (order them)`);
    const res = await changeset(deps, ctx, {
      ...(r.collection ? { collection: await collectionFor(doco, r.collection) } : {}),
      summary: `eval: ${r.key} supersedes ${r.supersedes}`,
      operations: [{ op: 'supersede', target: old, ...draft(r) }],
    });
    ids.set(r.key, res.results[0]!.id);
    retired.add(r.supersedes!);
  }

  const relations = records.flatMap((r) => (r.relations ?? []).map((rel) => ({ from: r.key, ...rel })));
  const ops = relations.map((rel) => {
    const from = ids.get(rel.from);
    const to = ids.get(rel.to);
    if (!from || !to) throw new Error(`records: relation ${rel.from} -${rel.edge_type}-> ${rel.to} names an unknown key`);
    if (retired.has(rel.from) || retired.has(rel.to))
      throw new Error(`records: relation ${rel.from} -> ${rel.to} names a superseded record`);
    return { op: 'relate' as const, from, to, edge_type: rel.edge_type };
  });
  for (const batch of chunks(ops, BATCH)) await changeset(deps, ctx, { summary: 'eval: relations', operations: batch });

  const drain = await drainOutbox({ sql: doco.sql, embedder: doco.providers.embedder, store: doco.providers.store, log: makeLog('warn') });
  const [left] = await doco.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`;
  await doco.sql`select doco.pagerank_sweep()`;
  return { ids, retired, sections: sections.length, records: records.length, edges: ops.length, drain, outboxLeft: left?.n ?? 0 };
}
