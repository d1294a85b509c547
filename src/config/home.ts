// Where Doco keeps a user's database, index, server record and CLI tokens: one home per user,
// found from any folder. DOCO_HOME when set; else a `.doco` folder in the current folder that an
// older version made (it holds a database: it is used, and the caller says so, never abandoned);
// else $XDG_DATA_HOME/doco, or ~/.local/share/doco.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface HomeChoice {
  path: string;
  /** DOCO_HOME named it; an older version's ./.doco was found; or the per-user default. */
  source: 'env' | 'legacy' | 'default';
}

/** Whether a folder holds a Doco database (an embedded cluster's data folder). */
export const holdsDatabase = (home: string) => existsSync(path.join(home, 'pg', 'PG_VERSION'));

export function chooseHome(env: NodeJS.ProcessEnv, cwd = process.cwd()): HomeChoice {
  if (env.DOCO_HOME) return { path: path.resolve(cwd, env.DOCO_HOME), source: 'env' };
  const legacy = path.join(cwd, '.doco');
  if (holdsDatabase(legacy)) return { path: legacy, source: 'legacy' };
  return { path: defaultHome(env), source: 'default' };
}

export function defaultHome(env: NodeJS.ProcessEnv): string {
  const data =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(data, 'doco');
}

/** The one line a command prints when it uses an older version's ./.doco. */
export const legacyHomeNotice = (home: HomeChoice, env: NodeJS.ProcessEnv) =>
  `doco: using ${home.path}, the home an older version made in this folder; to keep using it from any folder, move it to ${defaultHome(env)} (or set DOCO_HOME=${home.path})`;
