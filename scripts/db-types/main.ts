// `npm run db:types`: boots a throwaway embedded Postgres, migrates it and writes
// src/db/schema.ts from its catalog (generate.ts). The script compiles with `--noCheck`: the
// row types are regenerated exactly when the code may no longer type-check against them.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../../src/db/connect.js';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { generateSchemaTypes, schemaFile } from './generate.js';

const home = await mkdtemp(path.join(os.tmpdir(), 'doco-db-types-'));
await chmod(home, 0o755); // Postgres runs as the OS user postgres when we are root
const cluster = await startEmbeddedPostgres({ home, database: 'doco_types', settings: { fsync: 'off', synchronous_commit: 'off' } });
try {
  const handles = connect(cluster.url, { max: 2 });
  try {
    await migrate(handles.sql, { connectionString: cluster.url });
    const text = await generateSchemaTypes(handles.sql);
    const file = schemaFile();
    const before = await readFile(file, 'utf8').catch(() => '');
    await writeFile(file, text);
    console.log(before === text ? `${file}: unchanged` : `${file}: written`);
  } finally {
    await handles.close();
  }
} finally {
  await cluster.stop();
  await rm(home, { recursive: true, force: true });
}
