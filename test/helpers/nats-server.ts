// A real nats-server (Debian's `nats-server` package) for the integration suite: started on a
// free loopback port, killed with SIGKILL and restarted on the same port, and a publisher that
// connects, publishes and closes. Every server a test starts is ended by stopAllNatsServers().
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'nats';
import type { NatsConfig } from '../../src/config/nats.js';
import { freePort, waitFor } from './doco-process.js';

/** NATS_SERVER_BIN, else where Debian's package puts it (/usr/sbin), else /usr/bin or /usr/local/bin. */
export const NATS_SERVER_BIN =
  process.env.NATS_SERVER_BIN ??
  ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p)) ??
  'nats-server';

const running = new Set<NatsServer>();

export class NatsServer {
  private child: ChildProcess | undefined;
  log = '';

  private constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  /** Extra args: e.g. ['--user', 'u', '--pass', 'p'] or the TLS flags. */
  static async start(opts: { port?: number; args?: string[] } = {}): Promise<NatsServer> {
    // A bare name is looked up on PATH by spawn; a path must exist.
    if (NATS_SERVER_BIN.includes('/') && !existsSync(NATS_SERVER_BIN))
      throw new Error(`no nats-server at ${NATS_SERVER_BIN}: apt-get install -y nats-server (or set NATS_SERVER_BIN)`);
    const server = new NatsServer(opts.port ?? (await freePort()), opts.args ?? []);
    running.add(server);
    await server.launch();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  private async launch(): Promise<void> {
    const from = this.log.length;
    const child = spawn(NATS_SERVER_BIN, ['-a', '127.0.0.1', '-p', String(this.port), ...this.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (d) => (this.log += d));
    child.stderr!.on('data', (d) => (this.log += d));
    let failed: Error | undefined;
    child.once('error', (err) => (failed = err));
    await waitFor(
      `nats-server on port ${this.port} to be ready (${this.log.slice(-1000)})`,
      () => {
        if (failed)
          throw new Error(`could not run ${NATS_SERVER_BIN}: ${failed.message} (apt-get install -y nats-server, or set NATS_SERVER_BIN)`);
        if (this.log.slice(from).includes('Server is ready')) return true;
        if (child.exitCode !== null) throw new Error(`nats-server exited: ${this.log.slice(from, from + 2000)}`);
        return false;
      },
      20_000,
    );
  }

  /** kill -9, awaited: the clients see their connection drop. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** A new server process on the same port. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  async stop(): Promise<void> {
    await this.kill();
    running.delete(this);
  }
}

export async function stopAllNatsServers(): Promise<void> {
  await Promise.all([...running].map((s) => s.stop()));
}

/** Publishes one message from a connection of its own, flushed before it closes. */
export async function publish(
  server: NatsServer,
  subject: string,
  data: string | Uint8Array,
  opts: { user?: string; pass?: string; token?: string } = {},
): Promise<void> {
  const nc = await connect({ servers: server.url, reconnect: false, ...opts });
  try {
    nc.publish(subject, typeof data === 'string' ? new TextEncoder().encode(data) : data);
    await nc.flush();
  } finally {
    await nc.close();
  }
}

/** The subscriber's config for a test: the seed's subjects, no credentials, short backoff waits. */
export const natsConfig = (servers: string[], extra: Partial<NatsConfig> = {}): NatsConfig => ({
  servers,
  auth: { kind: 'none' },
  tls: undefined,
  subjects: { register: 'service.register', unregister: 'service.unregister', gatewayOnline: 'gateway_online' },
  // Short waits, so a restarted server is found again quickly; the schedule is tested on its own.
  backoff: { minMs: 50, maxMs: 400 },
  ...extra,
});
