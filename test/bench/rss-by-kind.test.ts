// The load benchmark's split of a process's resident memory by kind of mapping, on a hand-written
// /proc/PID/smaps (the kernel's format: a mapping's line, then its fields).
import { describe, expect, it } from 'vitest';
import { rssByKind } from '../../bench/rss-by-kind.js';

const mapping = (from: number, bytes: number, name: string, rssKb: number) =>
  [
    `${from.toString(16)}-${(from + bytes).toString(16)} rw-p 00000000 00:00 0 ${name}`.trimEnd(),
    `Size:           ${bytes / 1024} kB`,
    `Rss:            ${rssKb} kB`,
    'Pss:            0 kB',
  ].join('\n');

describe('rssByKind', () => {
  it("tells V8's 256 KiB pages, malloc's heap, files and other anonymous memory apart", () => {
    const smaps = [
      mapping(0x400000, 4 * 1024 * 1024, '/usr/bin/node', 3000),
      mapping(0x1000000, 8 * 1024 * 1024, '[heap]', 5000),
      mapping(0x7f0000000000, 256 * 1024, '', 256),
      mapping(0x7f0000080000, 256 * 1024, '', 100),
      mapping(0x7f0000100000, 512 * 1024, '', 512), // two pages the kernel merged: not counted as V8's
      mapping(0x7f1000000000, 64 * 1024 * 1024, '', 2048),
      mapping(0x7ffd00000000, 132 * 1024, '[stack]', 40),
    ].join('\n');
    expect(rssByKind(smaps)).toEqual({
      files: 3000 * 1024,
      mallocHeap: 5000 * 1024,
      v8Pages: 356 * 1024,
      otherAnonymous: (512 + 2048 + 40) * 1024,
    });
  });

  it('reads nothing from an empty file', () => {
    expect(rssByKind('')).toEqual({ v8Pages: 0, mallocHeap: 0, otherAnonymous: 0, files: 0 });
  });
});
