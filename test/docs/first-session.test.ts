// The README's first session runs as written: its blocks marked `<!-- first-session -->`, in order
// in one bash (`-euo pipefail`, so a failing command or an unset variable stops it), against a
// real `doco serve` on a temp DOCO_HOME and a free port, with only `doco` (the built bin/doco.js)
// and node on PATH. Each block must print what the README's comments say it prints.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCO_BIN } from '../helpers/cli.js';
import { cleanUp, DocoHome, DocoServer } from '../helpers/doco-process.js';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');
const MARK = '::first-session block ';

/** The fenced blocks right after a `<!-- first-session -->` line, in order. */
function firstSessionBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^<!-- first-session -->\n```(?:sh|bash)\n([\s\S]*?)\n```$/gm)].map((m) => m[1]!);
}

/**
 * What each block prints, in the order of the README's blocks: every string must appear in the
 * block's text (its comments say so) and in what the block printed.
 */
const PRINTS: readonly (readonly string[])[] = [
  ['rule_01'],
  ['product-decisions', 'decision_01'],
  ['decision_01'],
  ['constrained_by'],
  ['1 active', '2 retired'],
  ['Must obey', 'Refunds over $500 need an owner', 'Already decided', 'because: touches app/routes/billing.tsx', 'briefed: 2 items', 'nothing matched well'],
  ['ok: ', 'record versions and', 'edge versions verified'],
];

let home: DocoHome;
let server: DocoServer;
let binDir: string;

beforeAll(async () => {
  home = await DocoHome.make();
  server = await DocoServer.start(home);
  // `doco` on PATH, as `npm install -g` would put it: the built bin/doco.js.
  binDir = await mkdtemp(path.join(os.tmpdir(), 'doco-first-session-bin-'));
  await writeFile(path.join(binDir, 'doco'), `#!/bin/sh\nexec '${process.execPath}' '${DOCO_BIN}' "$@"\n`);
  await chmod(path.join(binDir, 'doco'), 0o755);
}, 120_000);

afterAll(async () => {
  await cleanUp();
  if (binDir) await rm(binDir, { recursive: true, force: true });
});

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the README's first session", () => {
  const blocks = firstSessionBlocks(readFileSync(README, 'utf8'));

  it('is marked block by block, and each block says what it prints', () => {
    expect(blocks).toHaveLength(PRINTS.length);
    blocks.forEach((block, i) => {
      for (const text of PRINTS[i]!) expect(block, `block ${i + 1} of the README says it prints "${text}"`).toContain(text);
      // Only Doco and Node: no jq, curl, psql, or bash arrays.
      expect(block, `block ${i + 1}`).not.toMatch(/\b(jq|curl|psql)\b|=\(|\[@\]/);
    });
  });

  it('runs as written in one bash, each block printing what the README says', async () => {
    const script = blocks.map((block, i) => `echo '${MARK}${i + 1}'\n${block}`).join('\n');
    const env: NodeJS.ProcessEnv = {
      ...home.env({ DOCO_URL: server.url, DOCO_PORT: String(server.port) }),
      PATH: [binDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
      HOME: home.dir,
      LANG: 'C.UTF-8',
    };
    const { code, stdout, stderr } = await bash(script, env);
    // Each block's output: the text between its marker and the next.
    const outputs = stdout.split(new RegExp(`^${MARK}\\d+\\n`, 'm')).slice(1);
    const last = outputs.length;
    expect(code, `block ${last} of ${blocks.length} failed (exit ${code}):\n${blocks[last - 1]}\n--- stdout:\n${outputs[last - 1]}\n--- stderr:\n${stderr}`).toBe(0);
    expect(outputs).toHaveLength(blocks.length);
    outputs.forEach((out, i) => {
      for (const text of PRINTS[i]!) expect(out, `block ${i + 1} prints "${text}" (stderr: ${stderr})`).toContain(text);
    });
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 240_000);
});
