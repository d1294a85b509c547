// doco mcp-bridge --agent A: Doco's MCP server over stdio, for agents that cannot send a secret
// header from a file they do not commit. Gemini CLI expands `$VAR` in its settings before it
// reads `.gemini/.env`, so an HTTP entry with `Bearer $DOCO_MCP_TOKEN` reaches the server with
// no token unless the user exports it. The bridge runs in the checkout (the agent starts it
// there), reads the server URL and the agent's MCP write token from the git directory
// (`doco-hooks.json`, written by `doco hooks install`, never committed) and relays JSON-RPC
// between stdio and the server's Streamable HTTP endpoint. The MCP SDK's own transports do the
// framing, sessions and SSE. Stdout carries JSON-RPC only; every word for a person goes to stderr.
// bin/doco.js runs it without the command line's dispatcher, so it imports nothing that loads the
// API's modules (cli/output.ts reads the environment's schema: valibot): the SDK, node built-ins
// and hooks/ only (docs/agents.md, "Hook latency").
import { gitPaths } from '../../hooks/commit-trailer.js';
import { readLocalConfig } from '../../hooks/local-config.js';

const AGENTS = ['claude-code', 'codex', 'gemini'];
const note = (msg: string) => process.stderr.write(`doco mcp-bridge: ${msg}\n`);

interface AgentEntry {
  mcp_token?: string;
}

export async function mcpBridgeCommand(args: string[]): Promise<number> {
  const at = args.indexOf('--agent');
  const agent = at >= 0 ? args[at + 1] : undefined;
  // What cli/output.ts's reportError prints for a UsageError, and its exit code.
  if (!agent || !AGENTS.includes(agent) || args.length !== 2)
    return (process.stderr.write(`doco: ${(await import('../help.js')).usageLine('mcp-bridge')}\n`), 2);
  const git = gitPaths(process.cwd());
  if (!git)
    return (
      note(`${process.cwd()} is not in a git checkout: run the agent in the checkout where \`doco hooks install --agent ${agent}\` ran`),
      1
    );
  const config = readLocalConfig(git.commonDir) as ReturnType<typeof readLocalConfig> & { agents?: Record<string, AgentEntry> };
  const token = process.env.DOCO_MCP_TOKEN || config.agents?.[agent]?.mcp_token;
  const url = (process.env.DOCO_URL || config.url)?.replace(/\/+$/, '');
  if (!url || !token)
    return (note(`no Doco server or MCP token for ${agent} in this checkout: run \`doco hooks install --agent ${agent} --url URL\``), 1);

  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const stdio = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  let failed = false;
  // Messages on their way to the server: stdin ending (the agent done writing) waits for them.
  const inFlight = new Set<Promise<void>>();
  const closed = new Promise<void>((resolve) => {
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      void Promise.allSettled([stdio.close(), remote.close()]).then(() => resolve());
    };
    stdio.onclose = end;
    remote.onclose = end;
    remote.onerror = (err) => {
      // A refused token or a server that went away: say so once, and end the session.
      failed = true;
      note(`${url}/mcp: ${err.message}`);
      end();
    };
    stdio.onerror = (err) => note(`stdin: ${err.message}`);
    // The agent closing our stdin ends the session, once what it sent has been answered.
    process.stdin.once('end', () => void Promise.allSettled([...inFlight]).then(end));
  });
  stdio.onmessage = (message) => {
    const sent = remote.send(message).catch((err: Error) => {
      failed = true;
      note(`${url}/mcp: ${err.message}`);
      void stdio.close();
    });
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  remote.onmessage = (message) => {
    stdio.send(message).catch((err: Error) => note(`stdout: ${err.message}`));
  };
  await remote.start();
  await stdio.start();
  await closed;
  return failed ? 1 : 0;
}
