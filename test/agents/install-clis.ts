// The three agent CLIs the agent suite drives, at pinned versions, installed from npm into a cache
// outside node_modules (`$DOCO_AGENTS_CACHE`, else ~/.cache/doco-agents/<name>@<version>) and
// reused while present. They are not project dependencies: `npm ci` never fetches them. An
// install counts only once its marker file is written, so one cut short is redone.
// Run alone: `node dist/test/agents/install-clis.js` (prints each CLI's path).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type AgentName = 'claude-code' | 'codex' | 'gemini';

export interface AgentCli {
  agent: AgentName;
  pkg: string;
  version: string;
  bin: string;
}

export const AGENT_CLIS: AgentCli[] = [
  { agent: 'claude-code', pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  { agent: 'codex', pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  { agent: 'gemini', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
];

export const agentsCache = (): string => process.env.DOCO_AGENTS_CACHE || path.join(os.homedir(), '.cache', 'doco-agents');

const installDir = (cli: AgentCli) => path.join(agentsCache(), `${cli.pkg.replace('/', '+')}@${cli.version}`);

/** Where the CLI's executable is once installed. */
export const cliPath = (cli: AgentCli): string => path.join(installDir(cli), 'node_modules', '.bin', cli.bin);

const MARKER = '.doco-installed';

/** Installs one CLI unless its cache entry is complete; returns its path and whether npm ran. */
export function installCli(cli: AgentCli): { path: string; installed: boolean; ms: number } {
  const dir = installDir(cli);
  const started = Date.now();
  if (existsSync(path.join(dir, MARKER)) && existsSync(cliPath(cli))) return { path: cliPath(cli), installed: false, ms: 0 };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A package.json of its own, so npm installs here and not into an enclosing project.
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'doco-agent-cli', private: true }, null, 2)}\n`);
  const res = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${cli.pkg}@${cli.version}`], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (res.status !== 0 || !existsSync(cliPath(cli)))
    throw new Error(`npm install ${cli.pkg}@${cli.version} failed (exit ${res.status}) in ${dir}`);
  writeFileSync(path.join(dir, MARKER), `${cli.pkg}@${cli.version}\n`);
  return { path: cliPath(cli), installed: true, ms: Date.now() - started };
}

export function installClis(): Record<AgentName, string> {
  const out = {} as Record<AgentName, string>;
  for (const cli of AGENT_CLIS) {
    const r = installCli(cli);
    process.stdout.write(
      `agents: ${cli.pkg}@${cli.version} ${r.installed ? `installed in ${(r.ms / 1000).toFixed(1)} s` : 'cached'}: ${r.path}\n`,
    );
    out[cli.agent] = r.path;
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) installClis();
