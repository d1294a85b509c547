// Steps against the brief's deadline (src/lib/deadline.ts): a step's signal fires once it has
// settled, so nothing it started outlives it, and fires as an AbortError, the name fetch uses.
import { describe, expect, it } from 'vitest';
import { Deadline, step } from '../../src/lib/deadline.js';

describe('step', () => {
  it('answers with the value, then fires its signal as an AbortError', async () => {
    let seen: AbortSignal | undefined;
    const outcome = await step('lookup', new Deadline(5_000), async (signal) => {
      seen = signal;
      expect(signal.aborted).toBe(false);
      return 42;
    });
    expect(outcome).toEqual({ ok: true, value: 42 });
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toMatchObject({ name: 'AbortError' });
  });

  it('turns a failure into a warning (with the error, for the brief to judge) and still fires the signal', async () => {
    let seen: AbortSignal | undefined;
    const failure = new Error('no such table');
    const outcome = await step('lookup', new Deadline(5_000), async (signal) => {
      seen = signal;
      throw failure;
    });
    expect(outcome).toEqual({ ok: false, warning: 'lookup failed: no such table', error: failure });
    expect(seen!.aborted).toBe(true);
  });

  it('cuts a step the deadline passes, aborting what it runs', async () => {
    let seen: AbortSignal | undefined;
    const outcome = await step(
      'lookup',
      new Deadline(5_000),
      (signal) => {
        seen = signal;
        return new Promise<number>(() => {});
      },
      10,
    );
    expect(outcome).toEqual({ ok: false, warning: 'lookup cut by deadline' });
    expect(seen!.aborted).toBe(true);
  });
});
