// src/db/schema.ts is what scripts/db-types/ makes of the migrated schema: generated again from
// this run's template database (a copy of it), it must equal the committed file. A migration
// that changes a table without `npm run db:types` fails here; so does a hand edit of the file.
import { readFile } from 'node:fs/promises';
import type { TransactionSql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedValues } from '../../scripts/db-types/catalog.js';
import { generateSchemaTypes, schemaDrift, schemaFile } from '../../scripts/db-types/generate.js';
import { interfaceName } from '../../scripts/db-types/render.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let committed: string;
beforeAll(async () => {
  t = await createTestDb();
  committed = await readFile(schemaFile(), 'utf8');
});
afterAll(async () => {
  await t.drop();
});

/** What the generator makes of the schema after `ddl`, which is rolled back. */
async function generatedAfter(ddl: (tx: TransactionSql) => Promise<unknown>): Promise<string> {
  const rollback = new Error('rollback');
  let text = '';
  await t.sql
    .begin(async (tx) => {
      await ddl(tx);
      text = await generateSchemaTypes(tx);
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return text;
}

describe('the generated row types', () => {
  it('src/db/schema.ts is what the migrated schema generates', async () => {
    expect(schemaDrift(await generateSchemaTypes(t.sql), committed)).toBeUndefined();
  });

  it('are stale once a migration adds a column the file does not have', async () => {
    const text = await generatedAfter((tx) => tx`alter table doco.tokens add column note text`);
    expect(schemaDrift(text, committed)).toMatch(/line \d+ is\n +}\nwhere the schema makes it\n +note: string \| null;/);
  });

  it('take a named union from its check constraint: a new node type is stale NODE_TYPES', async () => {
    const text = await generatedAfter(async (tx) => {
      await tx`alter table doco.nodes drop constraint nodes_node_type_check`;
      await tx`alter table doco.nodes add constraint nodes_node_type_check check (node_type in ('intent', 'idea', 'rule', 'decision', 'action', 'log', 'eval', 'reference', 'state', 'principal', 'question'))`;
    });
    expect(schemaDrift(text, committed)).toContain("'state', 'principal', 'question'] as const;");
  });

  it('refuse a column a named union types whose check lists other values', async () => {
    await expect(
      generatedAfter(async (tx) => {
        await tx`alter table doco.edges drop constraint edges_lifecycle_check`;
        await tx`alter table doco.edges add constraint edges_lifecycle_check check (lifecycle in ('active', 'retired'))`;
      }),
    ).rejects.toThrow(/LIFECYCLES: doco\.edges\.lifecycle allows active, retired/);
  });
});

describe('the generator', () => {
  it('reads the values of a check `col in (…)` as Postgres keeps it, and nothing else', () => {
    expect(allowedValues("CHECK ((scope = ANY (ARRAY['read'::text, 'write'::text])))")).toEqual(['read', 'write']);
    expect(allowedValues("CHECK ((kind = ANY (ARRAY['it''s'::text, 'a, b'::text])))")).toEqual(["it's", 'a, b']);
    expect(allowedValues("CHECK ((slug ~ '^[a-z]+$'::text))")).toBeUndefined();
    expect(allowedValues("CHECK (((source = 'fs'::text) OR (source ~ '^pack:'::text)))")).toBeUndefined();
  });

  it('names a table interface for one row', () => {
    expect(['nodes', 'node_versions', 'touches', 'glossary', 'connector_deliveries', 'outbox', 'index_stats'].map(interfaceName)).toEqual([
      'NodeTable',
      'NodeVersionTable',
      'TouchTable',
      'GlossaryTable',
      'ConnectorDeliveryTable',
      'OutboxTable',
      'IndexStatTable',
    ]);
  });
});
