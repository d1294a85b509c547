// The feature dump (`npm run eval -- --features FILE`): for every query of every set, the brief's
// rerank pool with each candidate's evidence (src/brief/pool-trace.ts), the query's targets and
// the brief's own ranking, so eval/fit-weights.ts can refit the relevance blend offline.
import type { PoolTrace } from './pool-trace.js';

export interface FeatureQuery {
  /** The query set's label, as the eval's report names it. */
  set: string;
  id: string;
  kind: string | undefined;
  /** The targets' record ids. */
  relevant: string[];
  /** The brief's ranking (its items by score), as the eval scored it. */
  brief: string[];
  /** The share of targets the brief sent in full. */
  sent: number;
  pool: PoolTrace;
}

export interface FeatureDump {
  version: 1;
  queries: FeatureQuery[];
}
