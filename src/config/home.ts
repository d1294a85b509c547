// Where Doco keeps a user's database, index, server record and CLI tokens: one home per user,
// found from any folder. DOCO_HOME when set; else $XDG_DATA_HOME/doco, or ~/.local/share/doco.
// Never the folder a command runs in: an older version kept its home in `./.doco`, and a
// repository that committed one (a `pg/PG_VERSION` and a `server.json`) chose the server the
// command line minted tokens through and sent prompts to (a hostile review). Such a folder is
// only named in a notice, with how to keep using it (DOCO_HOME).
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface HomeChoice {
  path: string;
  /** DOCO_HOME named it, or the per-user default. */
  source: 'env' | 'default';
  /** The default was taken beside a ./.doco holding a database (an older version's home, or a repository's). */
  passedOver?: string;
}

/** Whether a folder holds a Doco database (an embedded cluster's data folder). */
export const holdsDatabase = (home: string) => existsSync(path.join(home, 'pg', 'PG_VERSION'));

export function chooseHome(env: NodeJS.ProcessEnv, cwd = process.cwd()): HomeChoice {
  if (env.DOCO_HOME) return { path: path.resolve(cwd, env.DOCO_HOME), source: 'env' };
  const legacy = path.join(cwd, '.doco');
  return { path: defaultHome(env), source: 'default', ...(holdsDatabase(legacy) ? { passedOver: legacy } : {}) };
}

export function defaultHome(env: NodeJS.ProcessEnv): string {
  const data =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(data, 'doco');
}

/** The one line a command prints when it passed over a ./.doco holding a database. */
export const passedOverNotice = (home: HomeChoice) =>
  `doco: not using ${home.passedOver}: a home is never taken from the folder a command runs in; if an older version of Doco made it, set DOCO_HOME=${home.passedOver} (or move it to ${home.path})`;

/**
 * The mode a home is made with: its owner's alone. As root the embedded Postgres runs as the
 * `postgres` user (src/db/embedded-postgres.ts), which must pass through the home to its data
 * folder: others may then enter it, never list or write it.
 */
export const homeMode = () => (process.getuid?.() === 0 ? 0o711 : 0o700);

/**
 * Why this home may not be used, or undefined: it belongs to another user, or other users may
 * write in it. A home someone else made first (a shared /tmp, a DOCO_HOME in a shared folder)
 * would hand them the database password they chose and the server record the CLI trusts.
 */
export function homeProblem(home: string): string | undefined {
  let st;
  try {
    st = statSync(home);
  } catch {
    return undefined; // not there yet: made the caller's, with homeMode()
  }
  if (!st.isDirectory()) return `${home} is not a folder`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `${home} belongs to another user (uid ${st.uid}, not ${uid})`;
  if (st.mode & 0o022) return `${home} may be written by other users (mode ${(st.mode & 0o777).toString(8)}): chmod go-w it`;
  return undefined;
}
