// One JSON POST over node:http(s), for `doco hook`: fetch (undici) costs a hook ~50 ms to load and
// keeps the process alive ~100 ms after the answer, on every prompt and edit. The connection is
// closed after the answer so the process can exit at once. Node built-ins only.
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * `extraCaFile`: certificates an https server's chain may end in besides Node's own roots, as
 * NODE_EXTRA_CA_CERTS would add them (the hook's command starts Node without that variable and
 * hands its file on: src/hooks/install/common.ts). Read only for https.
 */
export async function postJson(
  url: string,
  token: string,
  payload: string,
  signal: AbortSignal,
  extraCaFile?: string,
): Promise<PostAnswer> {
  const target = new URL(url);
  const https = target.protocol === 'https:';
  const { request } = https ? await import('node:https') : await import('node:http');
  const ca = https && extraCaFile ? [...(await import('node:tls')).rootCertificates, readCertificates(extraCaFile)] : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        ...(ca ? { ca } : {}),
        method: 'POST',
        signal,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
          connection: 'close',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The file's text, or an error that names the variable and the file (the hook's note says it). */
function readCertificates(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `DOCO_EXTRA_CA_CERTS (NODE_EXTRA_CA_CERTS where the agent runs) names ${file}, which cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
