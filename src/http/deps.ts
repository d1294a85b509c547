// What the HTTP edge needs, built once in the composition root.
import type { PackHosts } from '../config/pack-hosts.js';
import type { Db, Sql } from '../db/connect.js';
import type { ReadRoute } from '../db/read-replica.js';
import type { PolicyJudge } from '../providers/judge.js';
import type { AuthContext } from '../auth/tokens.js';
import type { BodyBudget } from './body.js';
import type { HostPolicy } from './host-check.js';
import type { SearchProviders } from '../providers/from-config.js';

export interface AppDeps extends SearchProviders {
  db: Db;
  sql: Sql;
  judge: PolicyJudge;
  version: string;
  /** DATABASE_READ_URL: briefs and searches read through it (src/retrieval/reader.ts); unset: the primary. */
  reads?: ReadRoute;
  /** GITHUB_WEBHOOK_SECRET: without it POST /webhooks/github answers 503. */
  githubWebhookSecret?: string;
  /** SLACK_SIGNING_SECRET: without it POST /webhooks/slack/events answers 503. */
  slackSigningSecret?: string;
  /** DOCO_PACK_HOSTS: where docs packs may be registered although the host policy refuses their addresses; unset: none. */
  packHosts?: PackHosts;
  /** The Host values this server answers to (DNS rebinding); unset (tests calling the app in process): any. */
  hostPolicy?: HostPolicy;
  /** What the bodies read without a token may hold at once; buildApp makes one when unset. */
  bodyBudget?: BodyBudget;
  /** Epoch milliseconds (tests move the clock for Slack's timestamp window); Date.now by default. */
  now?: () => number;
  /**
   * DOCO_HOME: where the console's Re-verify keeps the chain's heads between checks, as `doco
   * verify` does (graph/chain-checks.ts); unset (tests calling the app in process): it checks the
   * chains alone.
   */
  home?: string;
  /** Benchmarks only (bench/writes.ts): writes without the duplicate guard. */
  skipDuplicateGuard?: boolean;
}

export interface AppEnv {
  Variables: { auth: AuthContext };
}
