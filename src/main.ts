// `doco serve` and `doco worker`: the composition root. Config → database → migrate → pool →
// app and/or worker; one ordered shutdown on SIGINT/SIGTERM (HTTP stops accepting, running
// jobs finish, pools close, then the embedded Postgres stops). bin/doco.js sends these two
// commands here and every other one to src/cli/main.ts.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runCommand } from './cli/main.js';
import { CliError, UsageError } from './cli/output.js';
import { homeMode, passedOverNotice } from './config/home.js';
import { readLiveServer } from './config/server-file.js';
import net from 'node:net';
import { buildApp } from './http/app.js';
import { keepConnectionsAlive } from './http/keep-alive.js';
import { createHttpServer } from './http/node-errors.js';
import { loadConfig, type Config } from './config/environment.js';
import { connect, type DbHandles } from './db/connect.js';
import { openReadReplica, type ReadRoute } from './db/read-replica.js';
import { migrate } from './db/migrate.js';
import { ensureWorkspace } from './auth/workspaces.js';
import { queueAllPackPulls } from './ingest/packs/queue.js';
import { startWorker, type RunningWorker } from './jobs/worker.js';
import { startNatsSubscriber, type NatsSubscriber } from './nats/subscriber.js';
import { indexKeeper, type IndexKeeper } from './indexing/index-keeper.js';
import { openIndexSession, type IndexSession } from './indexing/index-session.js';
import { makeJudge, makeSearchProviders } from './providers/from-config.js';
import { githubWebhookSecret, makeGithubClient } from './connectors/github/from-config.js';
import { makeNotionClient } from './connectors/notion/from-config.js';
import { makeDriveClient } from './connectors/drive/from-config.js';
import { makeSlackClient, slackSigningSecret } from './connectors/slack/from-config.js';
import { locateDatabase, type DatabaseLocation } from './db/locate.js';
import { crashHook } from './lib/crash-point.js';
import { makeLog, type Log } from './lib/log.js';
import { tuneV8ForServing } from './lib/v8-tuning.js';
import { DOCO_VERSION } from './lib/version.js';
import { serverFile } from './config/server-file.js';
import { browsableUrl } from './auth/console-link.js';

/** `doco serve …` or `doco worker …`, as bin/doco.js passes them. */
export async function main(argv: string[]): Promise<void> {
  tuneV8ForServing();
  const [name, ...args] = argv;
  await runCommand(name === 'worker' ? workerCommand : serveCommand, args, name);
}

export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { port: { type: 'string' }, 'no-worker': { type: 'boolean' } }, strict: true });
  const config = loadConfig();
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw new UsageError(`--port must be a port number, got ${values.port}`);
  const log = makeLog(config.logLevel);
  if (config.homePassedOver)
    log.warn(passedOverNotice({ path: config.home, source: config.homeSource, passedOver: config.homePassedOver }));
  // Before the database and the worker start, so a second `doco serve` stops at once with why.
  await ensurePortFree(config, port ?? config.port);
  const running = await startDoco(config, log, { http: true, worker: !values['no-worker'], ...(port ? { port } : {}) });
  await stopOnSignals(running, log);
  return 0;
}

export async function workerCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const config = loadConfig();
  const log = makeLog(config.logLevel);
  const running = await startDoco(config, log, { http: false, worker: true });
  await stopOnSignals(running, log);
  return 0;
}

/** Refuses a port something already listens on, naming a Doco server there when this home records one. */
async function ensurePortFree(config: Config, port: number): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(port, config.host, () => probe.close(() => resolve()));
    });
  } catch (err) {
    throw portRefused(config, port, err, await readLiveServer(config.home));
  }
}

function portRefused(config: Config, port: number, err: unknown, live: { url: string; pid: number } | undefined): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES') return new CliError(`port ${port} on ${config.host} needs privileges this user lacks: pick another with --port N`);
  if (code !== 'EADDRINUSE') return err;
  const there = live && new URL(live.url).port === String(port) ? live : undefined;
  return new CliError(
    there
      ? `a Doco server (pid ${there.pid}) already serves ${there.url} from DOCO_HOME=${config.home}: use it, or start another with --port ${port + 1} and its own DOCO_HOME`
      : `port ${port} on ${config.host} is in use by another program (or a Doco server of another DOCO_HOME): stop it, or start with --port ${port + 1} (or DOCO_PORT)`,
  );
}

export interface RunningDoco {
  url: string | undefined;
  stop(): Promise<void>;
}

export async function startDoco(config: Config, log: Log, opts: { http: boolean; worker: boolean; port?: number }): Promise<RunningDoco> {
  let location: DatabaseLocation | undefined;
  let handles: DbHandles | undefined;
  let reads: ReadRoute | undefined;
  let worker: RunningWorker | undefined;
  let nats: NatsSubscriber | undefined;
  let http: Server | undefined;
  let url: string | undefined;
  let keeper: IndexKeeper | undefined;
  let index: IndexSession | undefined;
  const providers = await makeSearchProviders(config, log);
  const github = opts.worker ? makeGithubClient(config, log) : undefined;
  const webhookSecret = opts.http ? githubWebhookSecret(config) : undefined;
  const notion = opts.worker ? makeNotionClient(config) : undefined;
  const drive = opts.worker ? makeDriveClient(config, log) : undefined;
  const slack = opts.worker ? makeSlackClient(config) : undefined;
  const slackSecret = opts.http ? slackSigningSecret(config) : undefined;
  const stop = async () => {
    if (http) await new Promise<void>((resolve) => http!.close(() => resolve()));
    if (nats) await nats.stop();
    if (worker) await worker.stop();
    if (keeper) await keeper.flush();
    if (index) await index.close();
    else await providers.store.close();
    if (reads) await reads.close();
    if (handles) await handles.close();
    if (url) await rm(serverFile(config.home), { force: true });
    if (location) {
      const outcome = await location.release();
      if (outcome === 'in_use') log.info('embedded Postgres left running: other Doco processes use it (the last to stop stops it)');
    }
  };
  try {
    location = await locateDatabase(config, { create: true });
    log.info(location.embedded ? `embedded Postgres ready (${path.join(config.home, 'pg')})` : 'using DATABASE_URL');
    if (location.adopted)
      log.warn('adopted the embedded Postgres a stopped process left running (killed, or crashed): it stops when this process does');
    handles = connect(location.url);
    const report = await migrate(handles.sql, { connectionString: location.url });
    if (report.applied.length) log.info(`applied migrations ${report.applied.join(', ')}`);
    index = await openIndexSession({ sql: handles.sql, log, ...providers });
    if (providers.store.kind === 'embedded' && !opts.worker)
      log.warn(
        'the embedded index is updated by the worker in its own process: run `doco serve` with its worker, or set QDRANT_URL to split them',
      );
    keeper = indexKeeper(providers.store, log);
    log.info(
      `search: ${providers.embedder.identity} embeddings in the ${providers.store.kind} store, ${providers.reranker.name} rerank, ${providers.synthesizer.name} synthesis`,
    );
    if (opts.worker) {
      worker = await startWorker({
        connectionString: location.url,
        sql: handles.sql,
        db: handles.db,
        docs: { root: config.docsRoot, workspace: config.workspace },
        packHosts: config.packHosts,
        log,
        ...providers,
        keeper,
        crash: crashHook(config.crashAt),
        briefsKeepDays: config.briefsKeepDays,
        ...(github ? { github } : {}),
        ...(notion ? { notion } : {}),
        ...(drive ? { drive } : {}),
        ...(slack ? { slack } : {}),
      });
      log.info('worker running');
      // The start-up re-pull: an unchanged pack costs a fetch and a hash compare, no embedding.
      const packs = await queueAllPackPulls(handles.sql);
      if (packs) log.info(`re-pulling ${packs} registered docs pack(s)`);
      // Not awaited: the worker runs while NATS is unreachable, and the subscriber keeps trying.
      if (config.nats)
        nats = startNatsSubscriber({
          sql: handles.sql,
          db: handles.db,
          log,
          workspaceId: await ensureWorkspace(handles.sql, config.workspace),
          packHosts: config.packHosts,
          config: config.nats,
        });
    }
    if (opts.http) {
      const port = opts.port ?? config.port;
      // Briefs and searches read from it while it keeps up (docs/replica.md); the worker never does.
      if (config.readReplica) reads = await openReadReplica(handles, { ...config.readReplica, log });
      const app = buildApp({
        db: handles.db,
        sql: handles.sql,
        ...(reads ? { reads } : {}),
        judge: await makeJudge(config),
        version: DOCO_VERSION,
        packHosts: config.packHosts,
        home: config.home,
        hostPolicy: { port, listenHost: config.host, publicHosts: config.publicUrl ? [new URL(config.publicUrl).host] : [] },
        ...providers,
        ...(webhookSecret ? { githubWebhookSecret: webhookSecret } : {}),
        ...(slackSecret ? { slackSigningSecret: slackSecret } : {}),
      });
      http = await new Promise<Server>((resolve, reject) => {
        const server = createHttpServer(app.fetch, log);
        keepConnectionsAlive(server);
        server.once('error', (err) => reject(portRefused(config, port, err, undefined)));
        server.listen(port, config.host, () => resolve(server));
      });
      url = `http://${config.host}:${port}`;
      await mkdir(config.home, { recursive: true, mode: homeMode() });
      await writeFile(serverFile(config.home), JSON.stringify({ url, pid: process.pid }));
      // No sign-in link here: a live code in a log is a credential wherever the log is shipped.
      // `doco console` prints one on the operator's terminal.
      log.info(`console: ${browsableUrl(config.host, port)}/ (run \`doco console\` for a one-time sign-in link)`);
      // Last: the line scripts wait for, so a signal sent once it is seen finds the handlers set
      // (the caller installs them as soon as this returns; work after it would leave a window).
      log.info(`Doco ${DOCO_VERSION} serving REST at ${url}/api/v1 and MCP at ${url}/mcp`);
    }
    return { url, stop };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

/** Runs until SIGINT/SIGTERM, then shuts down in order; a second signal forces the exit. */
export function stopOnSignals(running: RunningDoco, log: Log): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        log.warn(`${signal} again: exiting now`);
        process.exit(130);
      }
      stopping = true;
      log.info(`${signal}: shutting down`);
      running.stop().then(
        () => {
          log.info('stopped cleanly');
          resolve();
        },
        (err: Error) => {
          log.error(`shutdown failed: ${err.message}`);
          process.exitCode = 1;
          resolve();
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
