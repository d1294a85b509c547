// Crash points for the crash suite (test/crash): DOCO_TEST_CRASH_AT names one moment at which
// this process kills itself with SIGKILL, so a test reaches an exact window (points written to
// the vector store before the commit that records them; a snapshot written but not yet renamed)
// with a real kill -9, not a simulation. Unset, every point is a no-op.
import { writeSync } from 'node:fs';

export const CRASH_POINTS = [
  /** The drain wrote its batch's points to the vector store and has not committed doco.chunks yet. */
  'index-after-store-write',
  /** The embedded index's new snapshot is written and synced under its temporary name, not yet renamed. */
  'index-snapshot-before-rename',
  /** The drain loaded a batch holding a record whose title carries CRASH_MARK: a record that kills the drain every time. */
  'index-marked-record',
] as const;

/** What makes a record kill the drain at 'index-marked-record' (the crash suite's stand-in for input that crashes an embedder). */
export const CRASH_MARK = '[doco crash test: kills the drain]';

export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Called at each crash point; returns only when this process is not to crash there. */
export type CrashHook = (point: CrashPoint) => void;

export const noCrash: CrashHook = () => {};

export function crashHook(configured: CrashPoint | undefined): CrashHook {
  if (!configured) return noCrash;
  return (point) => {
    if (point !== configured) return;
    // Synchronous, so the line is out before the kill (a pipe's async write would be lost).
    writeSync(2, `crash point ${point}: killing this process with SIGKILL (DOCO_TEST_CRASH_AT)\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}
