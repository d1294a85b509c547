// Where a Notion connector's webhook handshake stands, read from its state (the keys
// connectors/notion/webhook.ts writes): for the status API, the CLI and the console.

export const VERIFICATION_TOKEN_KEY = 'webhook_verification_token';
/** When a person last armed the handshake (re-arming); absent, the connector's adding armed it. */
export const ARMED_AT_KEY = 'webhook_armed_at';
/** How long an armed handshake waits for Notion's token: creating the subscription takes a minute or two. */
export const HANDSHAKE_WINDOW_MINUTES = 60;
/** Where a Notion connector's handshake stands, for the person who armed it (the status API, the CLI, the console). */
export type HandshakeStatus =
  | { handshake: 'awaiting'; until: string }
  | { handshake: 'expired'; since: string }
  | { handshake: 'received'; received_at: string | null; verification_token?: string };

/** `reveal`: the token itself is shown (a person's write token or session, the CLI on the database). */
export function handshakeStatus(
  connector: { created_at: Date },
  state: Record<string, unknown>,
  opts: { reveal: boolean; now?: Date },
): HandshakeStatus {
  const kept = state[VERIFICATION_TOKEN_KEY];
  if (kept !== undefined) {
    const { token, received_at } = (typeof kept === 'string' ? { token: kept } : kept) as { token?: string; received_at?: string };
    return { handshake: 'received', received_at: received_at ?? null, ...(opts.reveal && token ? { verification_token: token } : {}) };
  }
  const armedAt = typeof state[ARMED_AT_KEY] === 'string' ? new Date(state[ARMED_AT_KEY]) : connector.created_at;
  const until = new Date(armedAt.getTime() + HANDSHAKE_WINDOW_MINUTES * 60_000);
  return until > (opts.now ?? new Date())
    ? { handshake: 'awaiting', until: until.toISOString() }
    : { handshake: 'expired', since: until.toISOString() };
}
