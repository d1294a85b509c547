// The nats client's connection options from our config: servers, credentials, TLS, and a
// reconnect policy that never gives up and backs off exponentially (backoff.ts).
import { readFile } from 'node:fs/promises';
import { credsAuthenticator, type ConnectionOptions } from 'nats';
import type { BackoffSchedule } from './backoff.js';
import type { NatsConfig } from '../config/nats.js';

/** The name the server's monitoring pages show for this client. */
export const NATS_CLIENT_NAME = 'doco-docs-packs';

async function readSetting(file: string, what: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new Error(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Reads the creds file (if any) now, so a rotated file is picked up at the next full reconnect. */
export async function connectionOptions(config: NatsConfig, schedule: BackoffSchedule): Promise<ConnectionOptions> {
  const opts: ConnectionOptions = {
    servers: config.servers,
    name: NATS_CLIENT_NAME,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectDelayHandler: () => schedule.delay(),
  };
  const auth = config.auth;
  if (auth.kind === 'creds') opts.authenticator = credsAuthenticator(await readSetting(auth.file, 'the NATS creds file (DOCO_NATS_CREDS)'));
  else if (auth.kind === 'user') Object.assign(opts, { user: auth.user, pass: auth.password });
  else if (auth.kind === 'token') opts.token = auth.token;
  if (config.tls) {
    const { caFile, certFile, keyFile } = config.tls;
    opts.tls = { ...(caFile ? { caFile } : {}), ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}) };
  }
  return opts;
}
