// An environment variable naming an HTTP endpoint: a URL whose scheme the fetch that uses it
// speaks, holding no user or password (fetch refuses one, and an error quoting the value would
// print it: a credential has its own variable).
import * as v from 'valibot';

/** No user or password in it (a text that is no URL says nothing here: `v.url` refuses it, and every check runs). */
function holdsNoCredential(text: string): boolean {
  try {
    const u = new URL(text);
    return !u.username && !u.password;
  } catch {
    return true;
  }
}

export const httpUrl = v.pipe(
  v.string(),
  v.url('must be a URL'),
  v.regex(/^https?:\/\//i, 'must be an http:// or https:// URL'),
  v.check(holdsNoCredential, 'must hold no user or password (give a credential its own variable)'),
);
