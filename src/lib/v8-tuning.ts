// The V8 settings a long-running Doco process runs with: `doco serve` and `doco worker` (src/main.ts)
// and the benches that host the server in their own process (bench/run.ts), set once before the
// server's work starts.
import v8 from 'node:v8';

/**
 * No allocation-site pretenuring. V8 watches each object and array literal whose objects outlive
 * young-generation collections and, past a threshold, allocates every later object of that literal
 * straight into the old generation. A server's first drain (batches of records held across SQL
 * round trips) trips it for literals a brief uses too, such as a driver's row; from then on each
 * such object is old from birth and holds young strings and arrays no young collection can free
 * until the next full one: they are copied and promoted with it. Without it, a brief's scavenges
 * take a third less time in all and its p95 falls with them (docs/eval.md, "Session 28").
 */
export function tuneV8ForServing(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
