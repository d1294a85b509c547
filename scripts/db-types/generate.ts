// src/db/schema.ts from a migrated database (the catalog, then the text), and how a committed
// file differs from what the database generates.
import path from 'node:path';
import type { TransactionSql } from 'postgres';
import type { Sql } from '../../src/db/connect.js';
import { findProjectRoot } from '../../src/lib/project-root.js';
import { readCatalog } from './catalog.js';
import { renderSchema } from './render.js';

/** Where the generated file lives. */
export const schemaFile = (root = findProjectRoot()) => path.join(root, 'src', 'db', 'schema.ts');

export async function generateSchemaTypes(sql: Sql | TransactionSql): Promise<string> {
  return renderSchema(await readCatalog(sql));
}

/** Undefined when `committed` is what the database generates; else the first line that differs, both ways. */
export function schemaDrift(generated: string, committed: string): string | undefined {
  if (generated === committed) return undefined;
  const ours = generated.split('\n');
  const theirs = committed.split('\n');
  let i = 0;
  while (ours[i] === theirs[i]) i++;
  return (
    `src/db/schema.ts is not what the migrated schema generates (run \`npm run db:types\`): line ${i + 1} is\n` +
    `  ${theirs[i] ?? '(end of file)'}\nwhere the schema makes it\n  ${ours[i] ?? '(end of file)'}`
  );
}
