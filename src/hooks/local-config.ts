// The per-checkout file `doco hooks install` writes inside the git directory (never committed):
// the server URL and each agent's tokens, which `doco hook` falls back on when DOCO_TOKEN /
// DOCO_URL are unset. Each agent's hooks read with a token of its own principal
// (`agent:<agent>@<checkout>`); the top-level `token` is an earlier install's, shared by every
// agent and a person's, read only until that agent is installed again.
import path from 'node:path';
import { readRegularText } from './git-dir-files.js';

export const LOCAL_CONFIG_FILE = 'doco-hooks.json';

export interface LocalHookConfig {
  /** An earlier install's hook token (a person's), for agents installed before hook tokens were their own. */
  token?: string;
  url?: string;
  workspace?: string;
  agents?: Record<string, { hook_token?: string; mcp_token?: string }>;
}

export const localConfigPath = (gitCommonDir: string) => path.join(gitCommonDir, LOCAL_CONFIG_FILE);

export function readLocalConfig(gitCommonDir: string): LocalHookConfig {
  try {
    // A regular file of a sane size only: the git directory may be anyone's (git-dir-files.ts).
    return JSON.parse(readRegularText(localConfigPath(gitCommonDir), 1 << 20) ?? '') as LocalHookConfig;
  } catch {
    return {};
  }
}

/** The read token an agent's hooks send: its own, else an earlier install's shared one. */
export const hookToken = (config: LocalHookConfig, agent: string): string | undefined => config.agents?.[agent]?.hook_token ?? config.token;
