// doco hook EVENT [--agent claude-code|codex|gemini]: what an agent's hook runs before a session,
// a prompt or an edit. Reads the agent's stdin JSON, adds what only the checkout knows (which
// checkout it is, the files it deleted: the server never looks at a folder a request names),
// POSTs it to /api/v1/hooks/:agent/:event and prints the answer. Runs before every prompt and
// edit, so it imports node built-ins only (node:http, node:fs, git as a child process; not fetch,
// see post-json.ts) and ALWAYS exits 0: a down, slow or failing server costs a stderr note, never the agent.
// bin/doco.js requires its CommonJS build (tsconfig.hook.json, dist/hook/), so nothing it imports
// may be an ES-only package (docs/agents.md, "Hook latency").
import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkoutKey, installCommitHook, lastBriefRecord, type GitPaths } from '../../hooks/commit-trailer.js';
import { defaultHome } from '../../config/home.js';
import { hookTimeout } from '../../config/hook-timeout.js';
import { liveServerIn } from '../../config/server-file.js';
import { hookToken, localConfigPath, readLocalConfig } from '../../hooks/local-config.js';
import { replaceFile } from '../../hooks/git-dir-files.js';
import { postJson } from '../../hooks/post-json.js';
import { probeCheckout } from '../../hooks/probe-checkout.js';

const AGENTS = ['claude-code', 'codex', 'gemini'] as const;
const EVENTS = ['session-start', 'prompt', 'edit'] as const;
type Agent = (typeof AGENTS)[number];

const note = (msg: string) => process.stderr.write(`doco hook: ${msg}\n`);

/** Longest server error message repeated on stderr. */
const MAX_SERVER_MESSAGE = 300;

/**
 * "the server answered 400 (validation_failed: …)": the error the server gave (the shape every
 * endpoint answers with), so an agent whose payload the server refuses says why. One line, no
 * control characters, a bounded length: the server may be remote, and this reaches a terminal.
 */
export function serverRefusal(status: number, body: string): string {
  let why = '';
  try {
    const err = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    const parts = [err?.code, err?.message].filter((p): p is string => typeof p === 'string' && p.length > 0);
    why = parts
      .join(': ')
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
      .trim();
  } catch {
    // not the error shape: the status alone
  }
  if (why.length > MAX_SERVER_MESSAGE) why = `${why.slice(0, MAX_SERVER_MESSAGE - 1)}…`;
  return `the server answered ${status}${why ? ` (${why})` : ''}`;
}

/** What to print when there is no answer: Gemini takes JSON only; the others take nothing. */
const fallback = (agent: Agent) => {
  if (agent === 'gemini') process.stdout.write('{}\n');
};

function parseArgs(args: string[]): { event?: string; agent: string } {
  let event: string | undefined;
  let agent = 'claude-code';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--agent') agent = args[++i] ?? '';
    else if (a.startsWith('--agent=')) agent = a.slice('--agent='.length);
    else if (!event) event = a;
  }
  return { event, agent };
}

/** The most of stdin read: the server takes a body of at most 4 MiB (src/graph/limits.ts), so more is never sent. */
const MAX_STDIN_BYTES = 4 * 1024 * 1024;

/** Stdin as text, or undefined when it holds more than MAX_STDIN_BYTES (the rest is not read). */
async function readStdin(signal: AbortSignal): Promise<string | undefined> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  const done = (async () => {
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).byteLength;
      if (size > MAX_STDIN_BYTES) {
        over = true;
        break;
      }
      chunks.push(chunk as Buffer);
    }
  })();
  const aborted = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('timed out reading stdin')), { once: true }),
  );
  await Promise.race([done, aborted]);
  return over ? undefined : Buffer.concat(chunks).toString('utf8');
}

/**
 * Where to send the event: DOCO_URL; else the URL `doco hooks install` kept in the checkout's git
 * directory; else the server the user's home records. Never a file in the working tree: the
 * hook runs in whatever checkout the agent works in, and a `.doco/server.json` committed there
 * sent the agent's token and prompts to the repository's choice of server (a hostile review).
 */
function serverUrl(git: GitPaths | undefined): string | undefined {
  if (process.env.DOCO_URL) return process.env.DOCO_URL.replace(/\/+$/, '');
  const installed = git ? readLocalConfig(git.commonDir).url : undefined;
  if (installed) return installed.replace(/\/+$/, '');
  const home = process.env.DOCO_HOME ? path.resolve(process.env.DOCO_HOME) : defaultHome(process.env);
  return liveServerIn(home)?.url.replace(/\/+$/, '');
}

export async function hookCommand(args: string[]): Promise<number> {
  const { event, agent } = parseArgs(args);
  const safeAgent: Agent = (AGENTS as readonly string[]).includes(agent) ? (agent as Agent) : 'claude-code';
  let printed = false;
  try {
    if (!event || !(EVENTS as readonly string[]).includes(event) || safeAgent !== agent) {
      const wrong =
        safeAgent !== agent
          ? `unknown agent ${JSON.stringify(agent)}; `
          : event && !(EVENTS as readonly string[]).includes(event)
            ? `unknown event ${JSON.stringify(event)}; `
            : '';
      // The usage --help prints; loaded on this path alone, so a hook that runs pays nothing for it.
      note(`${wrong}${(await import('../help.js')).usageLine('hook')}`);
      return 0;
    }
    // A bad DOCO_HOOK_TIMEOUT_MS costs a line on stderr, and the default wait: never the agent's prompt.
    const timeout = hookTimeout(process.env);
    if (timeout.problem) note(`${timeout.problem}; waiting the default ${timeout.ms} ms`);
    const signal = AbortSignal.timeout(timeout.ms);
    const raw = await readStdin(signal);
    if (raw === undefined) return (note(`stdin holds more than ${MAX_STDIN_BYTES} bytes, more than the server takes; nothing sent`), 0);
    let input: unknown;
    try {
      input = JSON.parse(raw);
    } catch {
      input = undefined;
    }
    if (!input || typeof input !== 'object' || Array.isArray(input)) {
      note('stdin is not a JSON object; nothing sent');
      return 0;
    }
    const { doco_deleted: _theirs, ...agentInput } = input as Record<string, unknown>;
    const named = typeof agentInput.cwd === 'string' && existsSync(agentInput.cwd) ? agentInput.cwd : undefined;
    const cwd = named ?? process.cwd();
    // One git for the paths and where the checkout is, a second for what it deleted.
    const probe = probeCheckout(cwd, named !== undefined);
    const git = probe.git;
    // Files go into a repository's git directory only where `doco hooks install` ran: the cwd is
    // the agent's to say, and an agent that moved to another repository of the user's must not
    // have its hooks, trailer file or caches written there.
    const installed = git !== undefined && existsSync(localConfigPath(git.commonDir));
    if (event === 'session-start' && git && installed) {
      try {
        const { note: msg } = installCommitHook(git);
        if (msg) note(msg.replace(/^doco: /, ''));
      } catch (err) {
        note(`could not install the prepare-commit-msg hook: ${(err as Error).message}`);
      }
    }
    const url = serverUrl(git);
    const token = process.env.DOCO_TOKEN || (git ? hookToken(readLocalConfig(git.commonDir), agent) : undefined);
    if (!url) return (note('no Doco server found (set DOCO_URL, or run doco hooks install)'), 0);
    if (!token) return (note('no token (set DOCO_TOKEN, or run doco hooks install)'), 0);
    // The checkout beside the agent's own fields: worktrees and subfolders of one branch are one
    // checkout; the files it deleted (relative to the cwd the agent named) mark records possibly stale.
    const deleted = git && named ? await probe.deleted(installed) : [];
    const payload = JSON.stringify(
      git ? { ...agentInput, doco_checkout: checkoutKey(git), ...(deleted.length ? { doco_deleted: deleted } : {}) } : agentInput,
    );
    // The certificates NODE_EXTRA_CA_CERTS named where the agent runs: the installed command
    // starts the hook without it (src/hooks/install/common.ts).
    const res = await postJson(
      `${url}/api/v1/hooks/${agent}/${event}`,
      token,
      payload,
      signal,
      process.env.DOCO_EXTRA_CA_CERTS || undefined,
    );
    const body = res.body;
    if (res.status < 200 || res.status >= 300) return (note(serverRefusal(res.status, body)), 0);
    // Doco answers a hook in JSON: anything else (a page at the wrong address) is not the agent's to read.
    if (!/^application\/json\b/i.test(String(res.headers['content-type'] ?? '')))
      return (note(`the server answered ${res.status} but not in JSON: is DOCO_URL a Doco server? Nothing printed`), 0);
    const header = res.headers['doco-brief-id'];
    const briefId = Array.isArray(header) ? header[0] : header;
    if (briefId && git && installed) {
      try {
        replaceFile(git.lastBrief, lastBriefRecord(briefId, `${url}/api/v1/briefs/${encodeURIComponent(briefId)}`));
      } catch (err) {
        note(`could not record the last brief: ${(err as Error).message}`);
      }
    }
    if (body.trim()) {
      process.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
      printed = true;
    }
    return 0;
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
    const why =
      e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : (e.code ?? e.cause?.code ?? e.cause?.message ?? e.message);
    note(`no brief (${why})`);
    return 0;
  } finally {
    if (!printed) fallback(safeAgent);
  }
}
