// One JSON POST to a team's model server (the OpenAI-compatible embedder, the rerank endpoint),
// with its timeout, the caller's abort, an optional Bearer key, and its failures read for the
// retry policy (src/lib/retry.ts): no answer, a timeout, or the status with the server's words.
import type { TryFailure } from '../lib/retry.js';
import { ProviderError } from '../lib/retry.js';

/** A request that failed as the retry policy sees it; thrown by postJson, read by modelServerFailure. */
export class ModelServerFailure extends Error {
  constructor(readonly failure: TryFailure) {
    super(failure.detail ?? (failure.status ? `HTTP ${failure.status}` : (failure.transport ?? 'failed')));
    this.name = 'ModelServerFailure';
  }
}

export const modelServerFailure = (err: unknown): TryFailure | undefined => (err instanceof ModelServerFailure ? err.failure : undefined);

/** The server's own words from an error body: OpenAI's {error: {message}}, Ollama's {error}, FastAPI's {detail}, or {message}. */
function errorDetail(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim().slice(0, 200) || undefined;
  }
  const b = body as { error?: unknown; detail?: unknown; message?: unknown };
  const nested = typeof b.error === 'object' && b.error ? (b.error as { message?: unknown }).message : undefined;
  const found = [nested, b.error, b.detail, b.message].find((x) => typeof x === 'string');
  if (found) return found as string;
  return b.detail === undefined ? undefined : JSON.stringify(b.detail).slice(0, 200);
}

/** Node's fetch hides why a connection failed in `cause` (ECONNREFUSED, ENOTFOUND…). */
function networkDetail(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}

export interface PostJson {
  /** Names the server in errors: its host, never the key. */
  provider: string;
  url: string;
  apiKey: string | undefined;
  body: unknown;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** The parsed JSON answer of a 2xx; a ModelServerFailure otherwise; an AbortError when `signal` fired. */
export async function postJson(req: PostJson): Promise<unknown> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(req.apiKey ? { authorization: `Bearer ${req.apiKey}` } : {}),
      },
      body: JSON.stringify(req.body),
      signal,
    });
    text = await res.text();
  } catch (err) {
    if (req.signal?.aborted) throw err; // the caller's abort: the retry policy stops on it
    if (timeout.aborted) throw new ModelServerFailure({ transport: 'timeout', detail: `no answer in ${req.timeoutMs} ms` });
    throw new ModelServerFailure({ transport: 'network', detail: networkDetail(err) });
  }
  if (!res.ok) {
    const detail = errorDetail(text);
    throw new ModelServerFailure({ status: res.status, ...(detail ? { detail } : {}), header: (name) => res.headers.get(name) });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError({
      provider: req.provider,
      message: `${req.provider} answered ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`,
      upstreamStatus: res.status,
      attempts: 1,
    });
  }
}
