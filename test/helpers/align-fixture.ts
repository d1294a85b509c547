// The alignment scan's committed fixture: the invented Tidewater docs tree (eval/fixtures/align),
// ingested through the real doc ingester and indexed, and a few patches against its code paths.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkspace } from './app.js';
import type { TestDb } from './db.js';
import { ingestTree } from './docs.js';
import { drainAll } from './search.js';
import type { SearchProviders } from '../../src/providers/from-config.js';

export const ALIGN_FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../eval/fixtures/align');

export async function ingestAlignFixture(t: TestDb, ws: TestWorkspace, providers: SearchProviders): Promise<void> {
  await ingestTree(t, ws, ALIGN_FIXTURE);
  await drainAll(t.sql, providers);
}

/** A change to the WAL's WriteSync (the fixture's docs name consensus/wal.go and WAL.WriteSync). */
export const WAL_PATCH =
  '@@ -88,6 +88,6 @@ func (w *WAL) Write(msg Message) error {\n-func (w *WAL) WriteSync(msg Message) error {\n+func (w *WAL) WriteSync(msg Message, fsync bool) error {\n \tif err := w.Write(msg); err != nil {\n';

/** The default commit timeout, changed in a file no doc names: only the key's name links them. */
export const TIMEOUT_PATCH =
  '@@ -40,7 +40,7 @@ func DefaultConsensusConfig() ConsensusConfig {\n-\t\tTimeoutCommit:  1 * time.Second,\n+\t\tTimeoutCommit:  500 * time.Millisecond,\n';

/** Words and names no fixture doc uses. */
export const UNRELATED_PATCH = '@@ -1,3 +1,3 @@ func frobnicate() {\n-\tquux := zorblax(9)\n+\tquux := zorblax(10)\n';
