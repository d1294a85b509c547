// Runs the built `doco` command (bin/doco.js → dist/) as a child process, as a user would.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCO_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/doco.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runDoco(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number; cwd?: string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DOCO_BIN, ...args], {
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`doco ${args.join(' ')} timed out; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

/**
 * The environment of a `doco` a test runs on the embedded defaults: no hosted model, no Qdrant,
 * no other server or token from the developer's shell.
 */
export const LOCAL_ONLY: NodeJS.ProcessEnv = {
  ANTHROPIC_API_KEY: '',
  VOYAGE_API_KEY: '',
  DOCO_EMBED_SERVER_URL: '',
  DOCO_RERANK_SERVER_URL: '',
  QDRANT_URL: '',
  DOCO_URL: '',
  DOCO_TOKEN: '',
};
