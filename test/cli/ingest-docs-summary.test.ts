// `doco ingest-docs`' summary names the tree's files: a file name holding an escape sequence
// (clear the screen, retitle the window, hide the rest of the line) or a line break reaches the
// operator's terminal as neither (a hostile review); the log drops control characters too.
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../src/cli/commands/ingest-docs.js';
import type { IngestReport } from '../../src/ingest/docs/types.js';
import type { WalkReport } from '../../src/ingest/docs/walk.js';
import { makeLog } from '../../src/lib/log.js';

const hostile = 'docs/\u001b[2J\u001b[H\u001b]0;owned\u0007\u001b[32mall docs ingested OK\u001b[0m\u001b[8m\nforged line.md';

describe('the ingest summary', () => {
  it('shows a hostile file name without its control characters, on its own line', () => {
    const tree = {
      files: [{ path: hostile, error: 'unreadable\u001b[2K' }],
      skippedLinks: [{ path: hostile, reason: 'a symbolic link to nothing: not followed' }],
      sections: 0,
      belowFloor: 0,
      truncated: 0,
    } as unknown as WalkReport;
    const report = {
      created: 0,
      updated: 0,
      skipped: 0,
      unchanged_files: 0,
      secrets: [{ section_key: `${hostile}#intro`, kind: 'aws_access_key', field: 'prose', line: 1 }],
      allowed_secrets: [],
      reap: { outcome: 'none' },
      run_id: 'run_1',
    } as unknown as IngestReport;
    const out = renderSummary('/repo', tree, report, { kind: 'server', url: 'http://127.0.0.1:1' } as never);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out.split('\n').filter((l) => l.startsWith('forged line'))).toEqual([]);
    expect(out).toContain('  docs/[2J[H]0;owned[32mall docs ingested OK[0m[8m forged line.md: a symbolic link to nothing: not followed');
  });

  it('logs a message without its control characters', () => {
    const lines: string[] = [];
    makeLog('info', (l) => lines.push(l)).warn(`not followed: ${hostile}`);
    expect(lines[0]).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
