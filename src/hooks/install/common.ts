// Shared by the per-agent installers: read a JSON settings file, merge Doco's hook entries and
// MCP server into it without touching anything else, take exactly ours back out, and write the
// file only when its bytes change (so installing twice changes nothing).
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../errors.js';

export type Json = Record<string, unknown>;
export type DocoEvent = 'session-start' | 'prompt' | 'edit';

export interface HookTarget {
  /** the agent's event name, e.g. UserPromptSubmit */
  name: string;
  matcher?: string;
  event: DocoEvent;
}

export interface InstallOptions {
  root: string;
  url: string;
  /** the hooks' read-only token */
  token: string;
  /** the MCP entry's write token, bound to agent:<agent>@<checkout> */
  mcpToken: string;
  /** tokens found in the agent's config that the server refuses: replaced even where not ours */
  refused: Set<string>;
  /** how to run doco, e.g. `npx doco` or `node /abs/bin/doco.js` */
  docoCommand: string;
  /** The same command as an argv, for entries that take a command and its arguments apart. */
  docoArgv: string[];
  http: boolean;
}

export interface FileChange {
  file: string;
  changed: boolean;
  removed?: boolean;
}

/** The object with one key set (in place, keeping key order) or, given undefined, taken out. */
export function withKey(obj: Json, key: string, value: unknown): Json {
  const out: Json = {};
  let seen = false;
  for (const [k, v] of Object.entries(obj)) {
    if (k !== key) out[k] = v;
    else {
      seen = true;
      if (value !== undefined) out[k] = value;
    }
  }
  if (!seen && value !== undefined) out[key] = value;
  return out;
}

export function readJsonFile(file: string): Json {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new OperatorError(`${file} is not valid JSON (${(err as Error).message}): fix or remove it, then run again`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OperatorError(`${file} does not hold a JSON object`);
  return parsed as Json;
}

/** A file holding a token is owner-only (0600), whoever made it and whatever the umask. */
export const TOKEN_FILE_MODE = 0o600;

/** Sets the file's permission bits to `mode` when they differ; true when it changed them. */
export function ensureMode(file: string, mode: number | undefined): boolean {
  if (mode === undefined || (statSync(file).mode & 0o777) === mode) return false;
  chmodSync(file, mode);
  return true;
}

/**
 * Writes the object (2-space JSON) when the bytes differ; removes the file when it is empty and
 * we made it. With `mode`, the file ends with exactly that mode, also when its bytes were right
 * (an earlier install wrote it 0644, or the user made it).
 */
export function writeJsonFile(file: string, value: Json, opts: { removeIfEmpty?: boolean; mode?: number } = {}): FileChange {
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (opts.removeIfEmpty && Object.keys(value).length === 0) {
    if (before === undefined) return { file, changed: false };
    rmSync(file);
    return { file, changed: true, removed: true };
  }
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (before === text) return { file, changed: ensureMode(file, opts.mode) };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, opts.mode ? { mode: opts.mode } : {});
  ensureMode(file, opts.mode);
  return { file, changed: true };
}

const OURS = /\bhook (session-start|prompt|edit) --agent (claude-code|codex|gemini)$|\/api\/v1\/hooks\/(claude-code|codex|gemini)\//;

/** A hook handler Doco installed: a `… hook <event> --agent <agent>` command or an http hook at our endpoint. */
export function isOurHandler(h: unknown): boolean {
  if (!h || typeof h !== 'object') return false;
  const { command, url } = h as { command?: unknown; url?: unknown };
  return (typeof command === 'string' && /doco/.test(command) && OURS.test(command)) || (typeof url === 'string' && OURS.test(url));
}

const asGroups = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const handlers = (g: Json): unknown[] => (Array.isArray(g.hooks) ? g.hooks : []);

/** The event's groups with our handlers taken out (groups left empty by that are dropped). */
function withoutOurs(groups: Json[]): Json[] {
  const out: Json[] = [];
  for (const g of groups) {
    const hs = handlers(g);
    const kept = hs.filter((h) => !isOurHandler(h));
    if (kept.length === hs.length) out.push(g);
    else if (kept.length > 0) out.push({ ...g, hooks: kept });
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Adds one group per target holding our handler; a group already exactly ours stays where it is. */
export function mergeHooks(settings: Json, targets: HookTarget[], handler: (t: HookTarget) => Json): Json {
  const hooks: Json = { ...((settings.hooks as Json | undefined) ?? {}) };
  for (const t of targets) {
    const group: Json = { ...(t.matcher ? { matcher: t.matcher } : {}), hooks: [handler(t)] };
    const groups = asGroups(hooks[t.name]);
    const mine = groups.filter((g) => handlers(g).some(isOurHandler));
    if (mine.length === 1 && same(mine[0], group)) continue;
    hooks[t.name] = [...withoutOurs(groups), group];
  }
  return withKey(settings, 'hooks', hooks);
}

/** Takes every Doco handler out; events and `hooks` left empty are removed. */
export function removeHooks(settings: Json): Json {
  if (!settings.hooks || typeof settings.hooks !== 'object') return settings;
  const hooks: Json = {};
  for (const [name, groups] of Object.entries(settings.hooks as Json)) {
    if (!Array.isArray(groups)) {
      hooks[name] = groups;
      continue;
    }
    const kept = withoutOurs(groups as Json[]);
    if (kept.length > 0 || groups.length === 0) hooks[name] = kept;
  }
  return withKey(settings, 'hooks', Object.keys(hooks).length > 0 ? hooks : undefined);
}

/** Adds `mcpServers.doco` unless the user has a server of that name; true when ours is there. */
export function mergeMcpServer(settings: Json, server: Json, ownedBefore: boolean): { settings: Json; ours: boolean } {
  const servers = (settings.mcpServers as Json | undefined) ?? {};
  if (servers.doco !== undefined && !ownedBefore) return { settings, ours: false };
  if (same(servers.doco, server)) return { settings, ours: true };
  return { settings: withKey(settings, 'mcpServers', withKey(servers, 'doco', server)), ours: true };
}

export function removeMcpServer(settings: Json): Json {
  const servers = settings.mcpServers as Json | undefined;
  if (!servers || servers.doco === undefined) return settings;
  const others = withKey(servers, 'doco', undefined);
  return withKey(settings, 'mcpServers', Object.keys(others).length > 0 ? others : undefined);
}

/**
 * Node reads the whole of NODE_EXTRA_CA_CERTS as it starts, before any of Doco's code runs: ~40 ms
 * of CPU for a system bundle of 144 certificates, on every prompt and edit, for a hook that most
 * often talks plain http to a loopback server. The hook's command starts Node without it and hands
 * the file on as DOCO_EXTRA_CA_CERTS, which the hook reads only for an https server
 * (src/hooks/post-json.ts). Not before npx, which may fetch Doco from the registry through the
 * proxy those certificates are for. Agents run a hook's command in a POSIX shell.
 */
export const WITHOUT_EXTRA_CA = 'DOCO_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS=';

/**
 * Whether a handler of ours is what this Doco installs: an http hook, or a command that starts
 * Node without NODE_EXTRA_CA_CERTS (or runs through npx). A command an older Doco wrote pays for
 * the bundle on every prompt and edit until `doco hooks install` writes it again.
 */
export function isCurrentHandler(h: unknown): boolean {
  const { command } = (h ?? {}) as { command?: unknown };
  return typeof command !== 'string' || command.startsWith(`${WITHOUT_EXTRA_CA} `) || /^npx\s/.test(command);
}

export const hookCommandLine = (o: InstallOptions, agent: string, event: DocoEvent) =>
  `${o.docoArgv[0] === 'npx' ? '' : `${WITHOUT_EXTRA_CA} `}${o.docoCommand} hook ${event} --agent ${agent}`;

/** Keeps a file holding a token out of commits: adds it to .git/info/exclude unless git already ignores it. */
export function ensureIgnored(root: string, rel: string): string | undefined {
  try {
    execFileSync('git', ['check-ignore', '-q', rel], { cwd: root, stdio: 'ignore' });
    return undefined;
  } catch {
    const exclude = path.resolve(
      root,
      execFileSync('git', ['rev-parse', '--git-path', 'info/exclude'], { cwd: root, encoding: 'utf8' }).trim(),
    );
    mkdirSync(path.dirname(exclude), { recursive: true });
    const before = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
    appendFileSync(exclude, `${before && !before.endsWith('\n') ? '\n' : ''}/${rel}\n`);
    return `added /${rel} to ${path.relative(root, exclude)} (it holds the token)`;
  }
}

/** Takes back out the line ensureIgnored added. */
export function removeIgnored(root: string, rel: string): void {
  const exclude = path.resolve(
    root,
    execFileSync('git', ['rev-parse', '--git-path', 'info/exclude'], { cwd: root, encoding: 'utf8' }).trim(),
  );
  if (!existsSync(exclude)) return;
  const before = readFileSync(exclude, 'utf8');
  const after = before
    .split('\n')
    .filter((l) => l !== `/${rel}`)
    .join('\n');
  if (after !== before) writeFileSync(exclude, after);
}
