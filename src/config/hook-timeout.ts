// DOCO_HOOK_TIMEOUT_MS, how long `doco hook` waits for the server. The hook reads it itself, with
// no schema library loaded (src/cli/commands/hook.ts, docs/agents.md "Hook latency"), so its rule
// is plain code here; the environment's schema (environment.ts) checks it with this same rule for
// every other command, and `doco hooks status` names a bad value. No imports: the hook's CommonJS
// build compiles this file too.

export const HOOK_TIMEOUT_VARIABLE = 'DOCO_HOOK_TIMEOUT_MS';
export const HOOK_TIMEOUT_DEFAULT_MS = 5000;
/** The longest wait a Node timer takes (a longer one fires at once). */
const MAX_MS = 2_147_483_647;

/** Why a value of DOCO_HOOK_TIMEOUT_MS is refused, or undefined when it is a timeout. */
export function hookTimeoutProblem(text: string): string | undefined {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 1) return 'must be a whole number of milliseconds';
  if (ms > MAX_MS) return `must be at most ${MAX_MS} milliseconds`;
  return undefined;
}

/** JSON's quoting, and the control characters it leaves (DEL, C1) escaped too: the line reaches a terminal. */
const quoted = (text: string) =>
  JSON.stringify(text).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export interface HookTimeout {
  ms: number;
  /** Where `ms` came from. */
  source: 'default' | typeof HOOK_TIMEOUT_VARIABLE;
  /** A value that is set but refused, in the environment's words: the default is waited instead. */
  problem?: string;
}

/** The hook's timeout: the variable's (unset or empty: the default), or the default and why the value set is refused. */
export function hookTimeout(env: Record<string, string | undefined>): HookTimeout {
  const text = env[HOOK_TIMEOUT_VARIABLE];
  if (text === undefined || text === '') return { ms: HOOK_TIMEOUT_DEFAULT_MS, source: 'default' };
  const problem = hookTimeoutProblem(text);
  if (problem)
    return { ms: HOOK_TIMEOUT_DEFAULT_MS, source: 'default', problem: `${HOOK_TIMEOUT_VARIABLE}: ${problem} (got ${quoted(text)})` };
  return { ms: Number(text), source: HOOK_TIMEOUT_VARIABLE };
}
