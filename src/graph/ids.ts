// Ids of the form <type>_<ULID>, monotonic within this process so ids sort in creation order.
import { monotonicFactory } from 'ulidx';

const nextUlid = monotonicFactory();

export const newId = (prefix: string): string => `${prefix}_${nextUlid()}`;

export const ID_PATTERN = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
