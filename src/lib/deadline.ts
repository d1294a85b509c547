// Running a step against the brief's deadline: a step that fails or is cut becomes a warning,
// never an error, and the brief answers with what it has.
export type StepOutcome<T> = { ok: true; value: T } | { ok: false; warning: string; error?: unknown };

export class Deadline {
  readonly at: number;
  constructor(
    ms: number,
    private readonly now = () => performance.now(),
  ) {
    this.at = this.now() + ms;
  }
  get remaining(): number {
    return Math.max(0, this.at - this.now());
  }
}

/**
 * What a settled step's signal fires with: one AbortError for every step, since building one
 * (and its stack) per step was a measurable share of a brief's own work.
 */
const SETTLED = new DOMException('the step has settled', 'AbortError');

/**
 * Runs `fn` with an AbortSignal that fires when the deadline (or `capMs`) passes, and also once
 * the step is settled, so no work it started (e.g. a sibling request still retrying after one
 * failed) outlives it.
 */
export async function step<T>(
  label: string,
  deadline: Deadline,
  fn: (signal: AbortSignal) => Promise<T>,
  capMs = Infinity,
): Promise<StepOutcome<T>> {
  const budget = Math.min(deadline.remaining, capMs);
  if (budget <= 0) return { ok: false, warning: `${label} cut by deadline` };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<StepOutcome<T>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ ok: false, warning: `${label} cut by deadline` });
    }, budget);
  });
  const run = fn(controller.signal).then(
    (value): StepOutcome<T> => ({ ok: true, value }),
    (err: Error): StepOutcome<T> =>
      controller.signal.aborted
        ? { ok: false, warning: `${label} cut by deadline` }
        : { ok: false, warning: `${label} failed: ${err?.message ?? String(err)}`, error: err },
  );
  try {
    return await Promise.race([run, cut]);
  } finally {
    clearTimeout(timer);
    controller.abort(SETTLED);
  }
}
