// The bounds of `doco_deleted`, the files a checkout deleted that `doco hook` sends with an event
// (deleted-files.ts finds them in the checkout; agents.ts validates them on the server). No
// imports: both sides read it, and the client side runs before every prompt.

/** At most this many paths are sent, the most recent deletions first. */
export const MAX_DELETED_PATHS = 1000;
/** A longer path is not sent (nor accepted). */
export const MAX_DELETED_PATH_CHARS = 1024;
