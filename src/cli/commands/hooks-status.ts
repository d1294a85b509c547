// doco hooks status [--agent A] [--url URL] [--json]: per agent, whether Doco's hooks are
// installed in this checkout, whether the hook token and the MCP token work against the server,
// and, for Codex, whether Codex trusts the hooks (asked of `codex app-server` when codex is on
// PATH), and whether its hook command is an older Doco's; and how long the hooks wait for the
// server (DOCO_HOOK_TIMEOUT_MS, as this shell sets it). Exit 1 when an installed agent's token is
// refused, the server cannot be reached, or DOCO_HOOK_TIMEOUT_MS is not a timeout.
import { hookTimeout, type HookTimeout } from '../../config/hook-timeout.js';
import { emptyState } from '../../hooks/install/agent.js';
import { readJsonFile } from '../../hooks/install/common.js';
import { codexTrust, type CodexTrust } from '../../hooks/install/codex-trust.js';
import { checkServer, checkToken, InstallError } from '../../hooks/install/server-client.js';
import { localConfigPath } from '../../hooks/local-config.js';
import { printJson, UsageError } from '../output.js';
import { checkout, INSTALLERS, serverUrl, type LocalState } from '../hooks-checkout.js';

type TokenState = { works: true; workspace: string; scope: string; principal: string } | { works: false; why: string };

interface AgentReport {
  agent: string;
  installed: boolean;
  file: string;
  events: Record<string, boolean>;
  /** Events whose hook is a command an older Doco wrote: it works, slower; install again to replace it. */
  outdated: string[];
  hook_token: TokenState;
  mcp: string;
  mcp_token: TokenState;
  trust?: string | Record<string, string>;
}

async function tokenState(url: string, reachable: string | undefined, token: string | undefined): Promise<TokenState> {
  if (reachable) return { works: false, why: reachable };
  if (!token) return { works: false, why: 'no token installed' };
  const check = await checkToken(url, token);
  return check.ok ? { works: true, ...check.info } : { works: false, why: `refused (${check.status}: ${check.message})` };
}

const trustText = (t: CodexTrust) => (t.known ? t.events : t.reason);

export async function hooksStatus(values: { agent?: string; url?: string; json?: boolean }): Promise<number> {
  if (values.agent && !INSTALLERS[values.agent]) throw new UsageError('--agent must be one of claude-code, codex, gemini');
  const { root, git } = checkout();
  const local = readJsonFile(localConfigPath(git.commonDir)) as LocalState;
  const { url } = await serverUrl(values.url, local);
  const unreachable = await checkServer(url).then(
    () => undefined,
    (err: unknown) => (err instanceof InstallError ? `server unreachable at ${url}` : String(err)),
  );
  const reports: AgentReport[] = [];
  for (const [agent, installer] of Object.entries(INSTALLERS)) {
    if (values.agent && values.agent !== agent) continue;
    const s = installer.status(root, local.agents?.[agent] ?? emptyState());
    const installed = Object.values(s.events).some(Boolean);
    const report: AgentReport = {
      agent,
      installed,
      file: s.file,
      events: s.events,
      outdated: s.outdated,
      hook_token: await tokenState(url, unreachable, s.hookToken ?? local.agents?.[agent]?.hook_token ?? local.token),
      mcp: s.mcp,
      mcp_token: await tokenState(url, unreachable, s.mcpToken ?? local.agents?.[agent]?.mcp_token),
    };
    if (agent === 'codex' && installed) report.trust = trustText(await codexTrust(root, Object.keys(s.events)));
    reports.push(report);
  }
  const timeout = hookTimeout(process.env);
  const failing = reports.some((r) => r.installed && (!r.hook_token.works || !r.mcp_token.works)) || timeout.problem !== undefined;
  if (values.json) printJson({ url, checkout: root, hook_timeout: timeout, agents: reports });
  else process.stdout.write(render(url, timeout, reports));
  return failing ? 1 : 0;
}

const timeoutLine = (t: HookTimeout) =>
  t.problem
    ? `hook timeout: ${t.problem}: the hooks wait the default ${t.ms} ms (each says so on stderr)`
    : `hook timeout: ${t.ms} ms (${t.source === 'default' ? 'the default' : t.source})`;

const tokenLine = (t: TokenState) => (t.works ? `works (${t.scope} token of ${t.principal} in workspace ${t.workspace})` : t.why);

function render(url: string, timeout: HookTimeout, reports: AgentReport[]): string {
  const lines = [`Doco server: ${url}`, timeoutLine(timeout)];
  for (const r of reports) {
    if (!r.installed) {
      lines.push(`${r.agent}: not installed (doco hooks install --agent ${r.agent})`);
      continue;
    }
    const events = Object.entries(r.events)
      .map(([e, on]) => `${e} ${on ? 'yes' : 'MISSING'}`)
      .join(', ');
    lines.push(`${r.agent}: hooks in ${r.file}: ${events}`);
    if (r.outdated.length)
      lines.push(
        `  hook command: an older Doco's for ${r.outdated.join(', ')} (it starts Node with NODE_EXTRA_CA_CERTS, ~40 ms a prompt): run \`doco hooks install --agent ${r.agent}\` again`,
      );
    lines.push(`  hook token: ${tokenLine(r.hook_token)}`, `  MCP: ${r.mcp}; token: ${tokenLine(r.mcp_token)}`);
    if (r.trust !== undefined) {
      lines.push(
        `  trusted by codex: ${
          typeof r.trust === 'string'
            ? r.trust
            : Object.entries(r.trust)
                .map(([e, s]) => `${e} ${s}`)
                .join(', ')
        }`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
