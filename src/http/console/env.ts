// The console's Hono environment: the signed-in session, the CSRF token its forms carry, and
// the key both are signed with.
import type { ConsoleSession } from '../../auth/console-sessions.js';

export interface ConsoleEnv {
  Variables: { session: ConsoleSession; csrf: string; secret: string };
}
