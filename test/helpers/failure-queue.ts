// Failures a fake serves on demand, ahead of its real answers: one without `path` goes to the
// next request; one with `path` only to a request for exactly that path, once `skip` of those
// have passed (to fail the third page of a listing, say).

export interface QueuedFailure {
  path?: string;
  skip?: number;
}

export function takeFailure<F extends QueuedFailure>(failures: F[], path: string): F | undefined {
  const i = failures.findIndex((f) => !f.path || path === f.path);
  const f = failures[i];
  if (!f) return undefined;
  if (f.skip) {
    f.skip--;
    return undefined;
  }
  failures.splice(i, 1);
  return f;
}
