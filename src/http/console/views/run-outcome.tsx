// An ingest run's outcome as a pill: its status while it runs, then its reap outcome (a refused
// reap shown as the alarm it is).
import type { IngestRun } from '../data/overview.js';
import { Pill } from './ui.js';

export function RunOutcome({ run }: { run: IngestRun }) {
  if (run.status !== 'finished') return <Pill kind={run.status} />;
  return <Pill kind={run.reap_outcome ?? 'finished'} />;
}
