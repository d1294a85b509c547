// The cursors one paginated listing has followed. Every listing the connectors walk (Slack's
// next_cursor, Notion's start_cursor, Drive's pageToken, GitHub's rel="next") ends when the API
// stops giving a cursor; an API that misbehaves, or a proxy that replays a page, could give one
// it gave before and keep a sweep reading the same pages for ever. A cursor met twice ends the
// walk with an error instead, which the sweep records on its connector like any failed call.

export class RepeatedCursorError extends Error {}

/**
 * A guard for one listing: `next(cursor)` returns the cursor, or throws when it was given before
 * (or is `first`, the cursor the walk started from).
 */
export function pageCursors(listing: string, first?: string): { next(cursor: string): string } {
  const seen = new Set<string>(first === undefined ? [] : [first]);
  return {
    next(cursor) {
      if (seen.has(cursor)) {
        const shown = cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor;
        throw new RepeatedCursorError(`${listing}: the API gave the page cursor "${shown}" a second time; stopped reading its pages`);
      }
      seen.add(cursor);
      return cursor;
    },
  };
}
