// A pacer shared by every request one client makes: turns are spaced so the client averages at
// most `perSecond` requests (Notion documents about 3 per second per integration), and a 429's
// Retry-After holds every caller, not only the one that was refused.

export interface PacerOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class Pacer {
  readonly intervalMs: number;
  private next = 0;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(perSecond: number, opts: PacerOptions = {}) {
    if (!(perSecond > 0)) throw new RangeError(`requests per second must be above 0, got ${perSecond}`);
    this.intervalMs = 1000 / perSecond;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Waits for this caller's turn. Turns are handed out in call order, so callers never starve. */
  async turn(): Promise<void> {
    const now = this.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await this.sleep(at - now);
  }

  /** No turn starts before `epochMs` (a 429's Retry-After). */
  holdUntil(epochMs: number): void {
    this.next = Math.max(this.next, epochMs);
  }
}
