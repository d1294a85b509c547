// eval/fit-weights.ts from the command line (dist/, as npm test builds it): a bad argument or
// file is one line of message and exit code 2, not a stack trace.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/eval/fit-weights.js');
const fit = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

describe('fit-weights arguments', () => {
  it('prints its usage and exits 2 without a file', () => {
    const r = fit();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^usage: node dist\/eval\/fit-weights\.js FEATURES\.json/);
  });

  it('names an unknown model, a missing file and a file that is not a feature dump, each without a stack', () => {
    const notDump = path.join(os.tmpdir(), `not-a-dump-${process.pid}.json`);
    writeFileSync(notDump, JSON.stringify({ corpora: [] }));
    for (const [args, message] of [
      [['dump.json', '--model', 'bogus'], /^fit-weights: --model bogus: not understood\nusage:/],
      [[path.join(os.tmpdir(), 'no-such-dump.json')], /^fit-weights: ENOENT/],
      [[notDump], /^fit-weights: .*not a version 1 feature dump\n$/],
    ] as const) {
      const r = fit(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    rmSync(notDump);
  });
});
