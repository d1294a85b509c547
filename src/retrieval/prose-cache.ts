// Candidates' text, remembered by record version. A brief reads the text of its best ~60
// candidates (beside the hop, before it knows their versions, and what it missed after), and most
// of them were candidates of a brief a moment before: the constitution, a team's busiest docs,
// the same files edit after edit. Reading that text again was ~1.2 ms of Postgres's CPU a brief
// at 10k records, about an eighth of what a brief costs it.
//
// Safe because a record's text never changes without a new version: the hash chain's trigger
// (sql/hash_chain.sql) bumps it on every content change, psql writes included. An entry is used
// only for a row read in the same brief at the same version and updated_at (a record deleted and
// made again under its id starts at version 1 again, at another time). Remembered per database
// handle, so two databases in one process (tests; a primary and its replica) never share one.
import type { Sql } from '../db/connect.js';
import { RecentMap } from '../lib/recent-map.js';

/** Texts remembered per handle: at most ~8 MB at CANDIDATE_TEXT_CHARS a text. */
export const PROSE_REMEMBERED = 4096;

/** A record's text (capped as the brief reads it) as of one version. */
export interface VersionedProse {
  prose: string;
  version: number;
  updatedAt: number;
}

const caches = new WeakMap<Sql, RecentMap<string, VersionedProse>>();

function cacheOf(sql: Sql): RecentMap<string, VersionedProse> {
  let cache = caches.get(sql);
  if (!cache) caches.set(sql, (cache = new RecentMap(PROSE_REMEMBERED)));
  return cache;
}

/** What is remembered of `id`, at whatever version (the caller checks it against its row). */
export const recalled = (sql: Sql, id: string): VersionedProse | undefined => cacheOf(sql).get(id);

export const remember = (sql: Sql, id: string, entry: VersionedProse): void => cacheOf(sql).set(id, entry);

/** Whether `entry` holds the text of the row as read (same version, same updated_at). */
export const isTextOf = (entry: VersionedProse | undefined, row: { version: number; updated_at: Date }): entry is VersionedProse =>
  entry !== undefined && entry.version === row.version && entry.updatedAt === row.updated_at.getTime();
