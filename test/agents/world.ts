// What one agent run needs around it, all on loopback inside the suite's network namespace: the
// refuser (the agents' HTTPS_PROXY), the fake model, `doco serve` on its own DOCO_HOME with a
// seeded constitution rule and decision, a recording proxy in front of it, a throwaway git
// checkout and an empty HOME for the agent. stop() ends all of it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanUp, DocoHome, DocoServer, writeToken } from '../helpers/doco-process.js';
import { FakeModel } from './fake-model.js';
import { RecordingProxy } from './recording-proxy.js';
import { Refuser } from './refuser.js';

export const RULE_TITLE = 'Never log card numbers';
export const DECISION_TITLE = 'Card charges go through the payments gateway';
export const PROMPT = 'Add a payments module that charges a card, and record our refund decision in Doco.';

/** Why the suite must not run agents here, or undefined when it is inside a loopback-only namespace. */
export function namespaceProblem(): string | undefined {
  if (process.env.DOCO_AGENTS_NO_NETNS) return process.env.DOCO_AGENTS_NO_NETNS;
  const interfaces = Object.keys(os.networkInterfaces());
  const others = interfaces.filter((i) => i !== 'lo');
  if (others.length > 0)
    return `not inside a loopback-only network namespace (interfaces: ${interfaces.join(', ')}): run \`npm run test:agents\``;
  if (!interfaces.includes('lo')) return 'loopback is down in this network namespace';
  return undefined;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

export interface AgentRecord {
  id: string;
  lifecycle: string;
  collection: string;
  source: string;
  actor: string | null;
}

export class World {
  private constructor(
    readonly refuser: Refuser,
    readonly refuserUrl: string,
    readonly model: FakeModel,
    readonly modelUrl: string,
    readonly home: DocoHome,
    readonly server: DocoServer,
    readonly proxy: RecordingProxy,
    /** what `doco hooks install --url` is given: the recording proxy in front of the server */
    readonly docoUrl: string,
    readonly checkout: string,
    readonly agentHome: string,
    readonly scratch: string,
  ) {}

  static async start(): Promise<World> {
    const refuser = new Refuser();
    const refuserUrl = await refuser.start();
    const model = new FakeModel();
    const modelUrl = await model.start();
    const home = await DocoHome.make();
    const server = await DocoServer.start(home);
    const proxy = new RecordingProxy(server.url);
    const docoUrl = await proxy.start();
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'doco-agents-'));
    const checkout = path.join(scratch, 'checkout');
    const agentHome = path.join(scratch, 'home');
    mkdirSync(path.join(checkout, 'src'), { recursive: true });
    mkdirSync(agentHome);
    writeFileSync(path.join(checkout, 'README.md'), '# Shop\n\nA small shop that takes card payments.\n');
    git(checkout, 'init', '-q', '-b', 'main');
    git(checkout, 'config', 'user.name', 'Agent Suite');
    git(checkout, 'config', 'user.email', 'agents@example.invalid');
    git(checkout, 'add', '-A');
    git(checkout, 'commit', '-q', '-m', 'Start the shop');
    const world = new World(refuser, refuserUrl, model, modelUrl, home, server, proxy, docoUrl, checkout, agentHome, scratch);
    await world.seed();
    return world;
  }

  /** The constitution rule the standing orders must carry, and a decision the prompt brief should find. */
  private async seed(): Promise<void> {
    const run = async (args: string[]) => {
      const res = await this.home.run(args);
      if (res.code !== 0) throw new Error(`doco ${args.join(' ')} failed: ${res.stderr}`);
    };
    await run([
      'capture',
      '--collection',
      'constitution',
      '--type',
      'rule',
      '--title',
      RULE_TITLE,
      '--prose',
      'Payment code never writes a card number to a log, not even masked.',
    ]);
    await run([
      'collection',
      'create',
      '--slug',
      'payments',
      '--template',
      'product-decisions',
      '--goal',
      'How the shop takes and refunds card payments',
    ]);
    await run([
      'capture',
      '--collection',
      'payments',
      '--type',
      'decision',
      '--title',
      DECISION_TITLE,
      '--prose',
      'Every card charge goes through one payments gateway module; nothing else calls the card processor.',
    ]);
  }

  /** A write token on the server's workspace, minted through the CLI on the server's DOCO_HOME. */
  writeToken(): Promise<string> {
    return writeToken(this.home);
  }

  /** The environment every agent process gets: its own HOME, the refuser as proxy, no Doco settings. */
  agentEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const keep = ['PATH', 'LANG', 'TZ'];
    const base: NodeJS.ProcessEnv = {};
    for (const k of keep) if (process.env[k] !== undefined) base[k] = process.env[k];
    return {
      ...base,
      HOME: this.agentHome,
      USER: os.userInfo().username,
      TERM: 'dumb',
      NO_COLOR: '1',
      HTTPS_PROXY: this.refuserUrl,
      HTTP_PROXY: this.refuserUrl,
      ALL_PROXY: this.refuserUrl,
      https_proxy: this.refuserUrl,
      http_proxy: this.refuserUrl,
      all_proxy: this.refuserUrl,
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      ...extra,
    };
  }

  /** The records titled `title`: lifecycle, collection, and the source and actor of the changeset that wrote them. */
  async records(title: string): Promise<AgentRecord[]> {
    const sql = await this.home.sql();
    try {
      return await sql<AgentRecord[]>`
        select n.id, n.lifecycle, c.slug as collection, cs.source, a.title as actor
        from doco.nodes n join doco.collections c on c.id = n.collection_id
        join doco.changesets cs on cs.id = n.changeset_id
        left join doco.nodes a on a.id = cs.actor_id
        where n.title = ${title}`;
    } finally {
      await sql.end();
    }
  }

  lastCommitMessage(): string {
    return git(this.checkout, 'log', '-1', '--format=%B');
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.proxy.stop(), this.model.stop(), this.refuser.stop()]);
    await cleanUp();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
