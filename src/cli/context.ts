// Shared by every command that talks to the database directly: find the database (the running
// server's embedded cluster, DATABASE_URL, or an embedded cluster started for this command),
// migrate, run, and release everything.
import os from 'node:os';
import { DEFAULT_WORKSPACE, loadConfig, type Config } from '../config/environment.js';
import { passedOverNotice } from '../config/home.js';
import { connect, type DbHandles } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import type { WriteContext } from '../graph/apply-changeset.js';
import { checkPrincipalName, principalNameProblem } from '../auth/principal-name.js';
import { ensurePrincipal, ensureWorkspace, findWorkspace, listWorkspaceSlugs } from '../auth/workspaces.js';
import { locateDatabase } from '../db/locate.js';
import { makeLog, type Log } from '../lib/log.js';
import { UsageError } from './output.js';

export interface CliEnv {
  config: Config;
  log: Log;
}

let noticeShown = false;

export function cliEnv(): CliEnv {
  const config = loadConfig();
  if (config.homePassedOver && !noticeShown) {
    noticeShown = true;
    process.stderr.write(`${passedOverNotice({ path: config.home, source: config.homeSource, passedOver: config.homePassedOver })}\n`);
  }
  return { config, log: makeLog(config.logLevel === 'info' ? 'warn' : config.logLevel) };
}

export async function withDatabase<T>(env: CliEnv, fn: (handles: DbHandles & { url: string }) => Promise<T>): Promise<T> {
  const location = await locateDatabase(env.config, { create: false });
  try {
    const handles = connect(location.url, { max: 4 });
    try {
      await migrate(handles.sql, { connectionString: location.url });
      return await fn({ ...handles, url: location.url });
    } finally {
      await handles.close();
    }
  } finally {
    await location.release();
  }
}

export const defaultPrincipalName = () => `cli:${os.userInfo().username}`;

/** A value quoted for a one-line message: JSON's escapes, no control character, at most ~60 characters. */
const quoted = (value: string) =>
  JSON.stringify([...value].length > 60 ? `${[...value].slice(0, 59).join('')}…` : value).replace(
    /\p{Cc}/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * --principal checked before anything opens (the rule is auth/principal-name.ts's), so a bad name
 * is a usage error and changes nothing; without the flag, the CLI user's own `cli:<os user>`.
 */
export function principalFlag(value: string | undefined): string {
  if (value === undefined) return defaultPrincipalName();
  const problem = principalNameProblem(value);
  if (problem) throw new UsageError(`--principal ${problem}, not ${quoted(value)}`);
  return value;
}

/**
 * The workspace and principal a CLI write is attributed to. The workspace must exist (see
 * `knownWorkspace`) unless `makeWorkspace`: only the commands made to set one up make it
 * (`doco token create`, `doco collection create`, `doco ingest-docs`), so a mistyped --workspace
 * or DOCO_WORKSPACE on any other is refused, not made.
 */
export async function cliWriteContext(
  handles: Pick<DbHandles, 'db' | 'sql'>,
  workspace: string,
  principal: string,
  opts: { makeWorkspace?: boolean } = {},
): Promise<WriteContext> {
  checkPrincipalName(principal); // before the workspace is made: a refused name changes nothing
  const workspaceId = opts.makeWorkspace ? await ensureWorkspace(handles.sql, workspace) : await knownWorkspace(handles, workspace);
  const principalId = await ensurePrincipal(handles.db, workspaceId, principal, 'cli');
  return { workspaceId, principalId, source: 'cli' };
}

/** How many workspaces an unknown one's message names. */
const NAMED_WORKSPACES = 10;

/**
 * The id of the workspace a command names, which must exist: a command that reads, points at or
 * writes into a workspace never makes one (a mistyped --workspace or DOCO_WORKSPACE would). An
 * unknown one is a usage error naming those there are, and nothing is changed. The default
 * workspace is made: a fresh home's first brief is an empty brief, its first capture a record.
 */
export async function knownWorkspace(handles: Pick<DbHandles, 'db' | 'sql'>, workspace: string): Promise<string> {
  if (workspace === DEFAULT_WORKSPACE) return ensureWorkspace(handles.sql, workspace);
  const found = await findWorkspace(handles.db, workspace);
  if (found) return found.id;
  const { slugs, more } = await listWorkspaceSlugs(handles.db, NAMED_WORKSPACES);
  const there = slugs.length ? `the workspaces: ${slugs.join(', ')}${more ? ', …' : ''}` : 'there is none yet';
  const slug = /^[a-z0-9][a-z0-9-]{0,62}$/.test(workspace) ? workspace : 'SLUG';
  throw new UsageError(
    `no workspace ${quoted(workspace)} here (${there}). Check --workspace and DOCO_WORKSPACE; \`doco collection create --workspace ${slug} …\` or \`doco token create --workspace ${slug}\` makes it`,
  );
}

/** The workspace a read names, which must exist (`knownWorkspace`), and the CLI user's principal in it. */
export async function cliReadContext(handles: Pick<DbHandles, 'db' | 'sql'>, workspace: string): Promise<WriteContext> {
  return cliWriteContext(handles, workspace, defaultPrincipalName());
}

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
