// Runs one agent CLI headless to its end (or kills it, with its process group, at the time
// limit), collecting its output. The caller gives the environment: nothing is inherited.
import { spawn } from 'node:child_process';

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

export function runAgent(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<AgentRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, opts.timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

/** A one-line account of a run for failure messages: exit, time, the output's tail. */
export const describeRun = (r: AgentRun): string =>
  `exit ${r.code ?? r.signal}${r.timedOut ? ' (killed at the time limit)' : ''} after ${(r.ms / 1000).toFixed(1)} s\n--- stdout (tail)\n${r.stdout.slice(-4000)}\n--- stderr (tail)\n${r.stderr.slice(-4000)}`;
