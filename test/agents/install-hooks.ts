// The one place the suite runs `doco hooks install`, as the README's "Agent hooks" section says,
// so a change to the installer is adapted here alone. It returns what install printed and the
// environment the agent then needs (what install's own notes tell a user to set).
//
// Today's installer (main): without --token it mints a read token straight on the database that
// DOCO_HOME names (starting an embedded Postgres under <checkout>/.doco when none is given), and
// the MCP entry is given that same read-only token, so an agent's doco_capture is refused. The
// suite therefore mints a write token on the server's DOCO_HOME (`doco token create --scope
// write`) and passes it as --token: install then starts no database, and MCP writes can land.
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { runDoco } from '../helpers/cli.js';
import type { AgentName } from './install-clis.js';
import type { World } from './world.js';

export interface Installed {
  stdout: string;
  /** what the agent's environment must hold afterwards (DOCO_TOKEN for Codex's and Gemini's MCP entries) */
  env: NodeJS.ProcessEnv;
}

export async function installHooks(world: World, agent: AgentName): Promise<Installed> {
  const token = await world.writeToken();
  const res = await runDoco(['hooks', 'install', '--agent', agent, '--url', world.docoUrl, '--token', token], {
    cwd: world.checkout,
    env: world.home.env(),
    timeoutMs: 60_000,
  });
  if (res.code !== 0) throw new Error(`doco hooks install --agent ${agent} exited ${res.code}: ${res.stderr}${res.stdout}`);
  // Install must never start a database of its own (issue #14): none may appear in the checkout.
  if (existsSync(path.join(world.checkout, '.doco'))) throw new Error('doco hooks install made <checkout>/.doco: it started a database of its own');
  const env: NodeJS.ProcessEnv = {};
  if (agent === 'codex') {
    // Install prints the config.toml snippet for the MCP server "to add to ~/.codex/config.toml
    // (with DOCO_TOKEN set in your environment)": do exactly that.
    const snippet = /\[mcp_servers\.doco\][^\n]*\n(?:[^\n[]+\n?)*/.exec(res.stdout)?.[0];
    if (!snippet) throw new Error(`doco hooks install --agent codex printed no [mcp_servers.doco] snippet:\n${res.stdout}`);
    mkdirSync(path.join(world.agentHome, '.codex'), { recursive: true });
    appendFileSync(path.join(world.agentHome, '.codex', 'config.toml'), `\n${snippet.trimEnd()}\n`);
    env.DOCO_TOKEN = token;
  }
  if (agent === 'gemini') {
    // Install prints the `export DOCO_TOKEN=…` line Gemini's MCP entry needs.
    const exported = /export DOCO_TOKEN=(\S+)/.exec(res.stdout)?.[1];
    if (!exported) throw new Error(`doco hooks install --agent gemini printed no export DOCO_TOKEN line:\n${res.stdout}`);
    env.DOCO_TOKEN = exported;
  }
  return { stdout: res.stdout, env };
}
