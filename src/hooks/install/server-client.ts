// The installer's calls to the Doco server it installs against: is it there, what is a token
// (GET /api/v1/whoami), and mint the hook and MCP tokens (POST /api/v1/hooks/tokens). The
// installer never opens a database: the server is the only place tokens are checked or made.

export class InstallError extends Error {}

export interface TokenInfo {
  workspace: string;
  scope: 'read' | 'write';
  principal: string;
}

export type TokenCheck = { ok: true; info: TokenInfo } | { ok: false; status: number; message: string };

export interface MintedTokens {
  workspace: string;
  principal: string;
  mcp_token: string;
  hook_token?: string;
}

const TIMEOUT_MS = 10_000;

async function call(url: string, route: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(`${url}${route}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
    throw new InstallError(
      `cannot reach the Doco server at ${url} (${why}): start it with \`doco serve\`, or point --url at it. Nothing was written.`,
    );
  }
}

const errorMessage = async (res: Response) => {
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? `the server answered ${res.status}`;
};

/** Throws InstallError when nothing answers at url, or something that is not Doco does. */
export async function checkServer(url: string): Promise<void> {
  const res = await call(url, '/healthz');
  if (!res.ok) throw new InstallError(`${url}/healthz answered ${res.status}: is that a Doco server? Nothing was written.`);
}

export async function checkToken(url: string, token: string): Promise<TokenCheck> {
  const res = await call(url, '/api/v1/whoami', { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  if (res.ok) return { ok: true, info: (await res.json()) as TokenInfo };
  return { ok: false, status: res.status, message: await errorMessage(res) };
}

export async function mintTokens(
  url: string,
  adminToken: string,
  body: { agent: string; checkout: string; hook_token: boolean },
): Promise<MintedTokens> {
  const res = await call(url, '/api/v1/hooks/tokens', {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok)
    throw new InstallError(
      `${url} refused to mint the hook tokens with the admin token (${res.status}: ${await errorMessage(res)}). Nothing was written.`,
    );
  return (await res.json()) as MintedTokens;
}
