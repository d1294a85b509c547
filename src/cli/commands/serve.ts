// doco serve [--port N] [--no-worker]; doco worker.
import { parseArgs } from 'node:util';
import { startDoco, stopOnSignals } from '../../runtime/serve.js';
import { makeLog } from '../../runtime/log.js';
import { loadConfig } from '../../config.js';
import { UsageError } from '../output.js';

export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { port: { type: 'string' }, 'no-worker': { type: 'boolean' } }, strict: true });
  const config = loadConfig();
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new UsageError(`--port must be a port number, got ${values.port}`);
  const log = makeLog(config.logLevel);
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
