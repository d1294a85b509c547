// doco reindex: re-embeds and re-indexes every live record from Postgres. With a server up it
// only queues them (the server's worker owns the embedded index); without one it drains here.
import { parseArgs } from 'node:util';
import { cliEnv, withDatabase } from '../context.js';
import { withLocalSearch } from '../local-search.js';
import { findServer } from '../server-client.js';

export async function reindexCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const env = cliEnv();
  const server = await findServer(env);
  // Clearing the stored hashes makes every chunk re-embed and re-upsert under its same id, so
  // nothing is orphaned in a store that survived; every live record is queued.
  const queued = await withDatabase(env, async ({ sql }) =>
    sql.begin(async (tx) => {
      await tx`update doco.chunks set content_hash = ''`;
      const res = await tx`
        insert into doco.outbox (node_id, workspace_id)
        select id, workspace_id from doco.nodes where lifecycle <> 'retired' and node_type <> 'principal'`;
      await tx`select pg_notify('doco_outbox', '')`;
      return res.count;
    }),
  );
  if (server) {
    process.stdout.write(`queued ${queued} record(s); the running server (${server}) is re-indexing them — see doco.outbox_backlog\n`);
    return 0;
  }
  const started = performance.now();
  const report = await withLocalSearch(env, async (deps) => deps.drained);
  process.stdout.write(
    `re-indexed ${report.records} record(s): ${report.chunksEmbedded} chunk(s) embedded, ${report.chunksRemoved} removed, ${report.failedRecords} failed, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return report.failedRecords ? 1 : 0;
}
