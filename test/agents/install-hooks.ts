// The one place the suite runs `doco hooks install`, as docs/agents.md ("Setting up an agent")
// section says: with the server up, the person's own write token as DOCO_ADMIN_TOKEN, and
// `doco hooks install --agent A --url URL`. The server mints a read-only hook token and, for the
// MCP entry, a write token of `agent:<agent>@<checkout>`; install checks both against the server
// before writing a file and never starts a database. Afterwards `doco hooks status` must say the
// agent's hooks are in and both tokens work. Nothing is exported for the agent: the installed
// files carry the tokens (Claude's settings.local.json, Codex's project config.toml, Gemini's
// .gemini/.env).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runDoco } from '../helpers/cli.js';
import type { AgentName } from './install-clis.js';
import type { World } from './world.js';

export interface Installed {
  stdout: string;
  /** what the agent's environment must hold afterwards: nothing, when install did its job */
  env: NodeJS.ProcessEnv;
}

export async function installHooks(world: World, agent: AgentName): Promise<Installed> {
  const admin = await world.writeToken();
  const env = { ...world.home.env(), DOCO_ADMIN_TOKEN: admin };
  const res = await runDoco(['hooks', 'install', '--agent', agent, '--url', world.docoUrl], {
    cwd: world.checkout,
    env,
    timeoutMs: 60_000,
  });
  if (res.code !== 0) throw new Error(`doco hooks install --agent ${agent} exited ${res.code}: ${res.stderr}${res.stdout}`);
  // Install must never start a database of its own (issue #14): none may appear in the checkout.
  if (existsSync(path.join(world.checkout, '.doco')))
    throw new Error('doco hooks install made <checkout>/.doco: it started a database of its own');
  const status = await runDoco(['hooks', 'status', '--agent', agent, '--json'], {
    cwd: world.checkout,
    env: world.home.env(),
    timeoutMs: 60_000,
  });
  if (status.code !== 0) throw new Error(`doco hooks status --agent ${agent} exited ${status.code}: ${status.stderr}${status.stdout}`);
  return { stdout: res.stdout, env: {} };
}
