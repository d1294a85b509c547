// Fetches a service's docs pack from GET {base_url}/api/v1/system/docs/pack, with a timeout and
// a size cap, and checks it against the pack format; every failure is one readable sentence.
import * as v from 'valibot';
import { DocsPackSchema, PACK_LIMITS, type DocsPack } from './format.js';

export const PACK_ROUTE = '/api/v1/system/docs/pack';
export const DEFAULT_FETCH_TIMEOUT_MS = 15_000;

export class PackFetchError extends Error {
  override name = 'PackFetchError';
}

export interface FetchPackOptions {
  timeoutMs?: number;
}

export const packUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}${PACK_ROUTE}`;

async function readCapped(res: Response, url: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > PACK_LIMITS.packBytes)
    throw new PackFetchError(`${url} sent ${declared} bytes; a pack may hold at most ${PACK_LIMITS.packBytes}`);
  if (!res.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > PACK_LIMITS.packBytes)
      throw new PackFetchError(`${url} sent more than ${PACK_LIMITS.packBytes} bytes; a pack may hold at most that`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The pack the service serves, checked against the format and against the code it registered. */
export async function fetchDocsPack(baseUrl: string, code: string, opts: FetchPackOptions = {}): Promise<DocsPack> {
  const url = packUrl(baseUrl);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  let text: string;
  try {
    const res = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'follow',
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new PackFetchError(`${url} answered ${res.status} ${res.statusText}`.trim());
    }
    text = await readCapped(res, url);
  } catch (err) {
    if (err instanceof PackFetchError) throw err;
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new PackFetchError(`${url} did not answer within ${timeoutMs} ms`);
    throw new PackFetchError(`could not fetch ${url}: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new PackFetchError(`${url} did not send JSON: ${(err as Error).message}`);
  }
  const parsed = v.safeParse(DocsPackSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue ? v.getDotPath(issue) : null;
    throw new PackFetchError(
      `${url} sent an invalid pack: ${where ? `${where} ` : ''}${issue?.message ?? 'does not match the pack format'}`,
    );
  }
  if (parsed.output.code !== code)
    throw new PackFetchError(`${url} sent the pack of "${parsed.output.code}", but it was registered as "${code}"`);
  return parsed.output;
}
