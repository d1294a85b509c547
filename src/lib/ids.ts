// Ids of the form <type>_<ULID>, monotonic within this process so ids sort in creation order.
import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

/**
 * ulidx's own source of randomness asks crypto for one byte per character (sixteen calls per
 * id, a tenth of a millisecond per capture); this hands out bytes of a pooled crypto buffer.
 * A byte / 256 is uniform over the 32 symbols of a character, where ulidx's byte / 255 is not.
 */
const POOL_BYTES = 4096;
let pool = randomBytes(POOL_BYTES);
let next = 0;
function pooledRandom(): number {
  if (next === POOL_BYTES) {
    pool = randomBytes(POOL_BYTES);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** Process-wide on purpose: ids are monotonic per process only if one factory makes them all. */
const nextUlid = monotonicFactory(pooledRandom);

export const newId = (prefix: string): string => `${prefix}_${nextUlid()}`;

export const ID_PATTERN = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
