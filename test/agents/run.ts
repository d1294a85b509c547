// `npm run test:agents`: installs the agent CLIs into their cache (the only step that needs the
// registry), then runs the agent suite's vitest inside a new network namespace holding nothing
// but loopback (`unshare`, `ip link set lo up`), so every process it starts — Doco, its Postgres,
// the fake model, the agents — can reach nothing else. As root `unshare -n` is enough (and
// Postgres can still run as the OS user postgres); as any other user `unshare -rn` makes a user
// namespace too, and a nested one maps the user back to itself so Doco does not think it is root.
// When no namespace can be made the agents do not run: vitest runs without them and every agent
// test is reported skipped, with the reason, so the run cannot read as a pass (and with
// DOCO_AGENTS_REQUIRE=1 the run fails).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installClis } from './install-clis.js';

const args = process.argv.slice(2);
// Built to dist/test/agents/run.js: the project root is three folders up.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const vitestArgs = [vitest, 'run', '--config', 'vitest.agents.config.ts', ...args];

function namespacePrefix(): string[] {
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  // Inside: bring loopback up, then (not root) drop back to our own uid in a nested user namespace.
  const inner =
    uid === 0 ? 'ip link set lo up && exec "$@"' : `ip link set lo up && exec unshare --user --map-user=${uid} --map-group=${gid} -- "$@"`;
  return ['unshare', ...(uid === 0 ? ['-n'] : ['-rn']), '--', 'sh', '-c', inner, 'sh'];
}

/** Undefined when a loopback-only namespace can be made here, else what went wrong. */
function probe(prefix: string[]): string | undefined {
  const res = spawnSync(
    prefix[0]!,
    [
      ...prefix.slice(1),
      process.execPath,
      '-e',
      'const os=require("os");process.stdout.write(Object.keys(os.networkInterfaces()).join(","))',
    ],
    { encoding: 'utf8' },
  );
  if (res.error) return `${prefix[0]}: ${res.error.message}`;
  if (res.status !== 0) return `\`${prefix.join(' ')} …\` exited ${res.status}: ${res.stderr.trim().split('\n').slice(-2).join(' ')}`;
  if (res.stdout !== 'lo') return `the namespace had interfaces ${JSON.stringify(res.stdout)}, not loopback alone`;
  return undefined;
}

const started = Date.now();
installClis();
process.stdout.write(`agents: CLIs ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

const prefix = namespacePrefix();
const problem = probe(prefix);
let status: number | null;
if (problem) {
  const reason = `cannot create a network namespace with only loopback (${problem})`;
  process.stdout.write(`agents: SKIPPED, no agent will run: ${reason}\n`);
  status = spawnSync(process.execPath, vitestArgs, { stdio: 'inherit', env: { ...process.env, DOCO_AGENTS_NO_NETNS: reason } }).status;
  // Where the agents must run (DOCO_AGENTS_REQUIRE=1), a machine that cannot fence them fails.
  if (process.env.DOCO_AGENTS_REQUIRE === '1') {
    process.stdout.write('agents: DOCO_AGENTS_REQUIRE=1: failing, as no agent ran\n');
    status = 1;
  }
} else {
  process.stdout.write(`agents: running the suite inside \`${prefix.slice(0, prefix.indexOf('--')).join(' ')}\` (loopback only)\n`);
  status = spawnSync(prefix[0]!, [...prefix.slice(1), process.execPath, ...vitestArgs], { stdio: 'inherit' }).status;
}
process.exit(status ?? 1);
