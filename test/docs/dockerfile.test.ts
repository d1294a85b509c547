// The image is built with `npm ci`, whose prepare script runs `tsc -p tsconfig.build.json`: every
// path that config includes must be copied into the build stage, or the image does not build. No
// Docker engine runs here, so this reads the Dockerfile as text (the check the build would fail).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

/** The sources the Dockerfile's first stage copies from the build context. */
function buildStageCopies(dockerfile: string): string[] {
  const stages = dockerfile.split(/^FROM /m).slice(1);
  return stages[0]!
    .split('\n')
    .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
    .flatMap((line) => line.replace(/^COPY\s+/, '').split(/\s+/).slice(0, -1));
}

describe('the Dockerfile', () => {
  it('copies into its build stage every path tsconfig.build.json compiles and the build reads', () => {
    const copied = buildStageCopies(read('Dockerfile'));
    const covered = (p: string) => copied.some((c) => p === c || p.startsWith(`${c.replace(/\/$/, '')}/`));
    const tsconfig = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    const needed = [...tsconfig.include, 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.hook.json', 'package.json', 'package-lock.json', 'scripts/patch-postgres.cjs', 'scripts/hook-package.js', 'migrations', 'sql'];
    expect(needed.filter((p) => !covered(p))).toEqual([]);
  });

  it("runs Doco with glibc's allocator tuned as docs/production.md says (one arena, large blocks mapped)", () => {
    const runtime = read('Dockerfile').split(/^FROM /m).at(-1)!;
    const env = runtime.match(/^ENV ((?:.*\\\n)*.*)$/m)?.[1] ?? '';
    const vars = Object.fromEntries(env.split(/\s*\\\n\s*|\s+/).map((pair) => pair.split('=') as [string, string]));
    expect(vars).toMatchObject({ MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' });
  });
});
