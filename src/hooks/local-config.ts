// The per-checkout file `doco hooks install` writes inside the git directory (never committed):
// the read token and server URL that `doco hook` falls back on when DOCO_TOKEN / DOCO_URL are unset.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const LOCAL_CONFIG_FILE = 'doco-hooks.json';

export interface LocalHookConfig {
  token?: string;
  url?: string;
  workspace?: string;
}

export const localConfigPath = (gitCommonDir: string) => path.join(gitCommonDir, LOCAL_CONFIG_FILE);

export function readLocalConfig(gitCommonDir: string): LocalHookConfig {
  try {
    return JSON.parse(readFileSync(localConfigPath(gitCommonDir), 'utf8')) as LocalHookConfig;
  } catch {
    return {};
  }
}
