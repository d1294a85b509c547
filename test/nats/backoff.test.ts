// The reconnect backoff, driven by a model of the nats client's dial loop (it asks for the wait
// on every pass and dials once that wait has passed since its last dial) on a fake clock: the
// attempts come at 0, min, 3·min, 7·min … with the gaps capped at max, and start over after reset.
import { describe, expect, it } from 'vitest';
import { backoffSchedule, type BackoffSchedule } from '../../src/nats/backoff.js';

/** The dial times (ms) the client's loop makes until `until`, each dial failing. */
function dialTimes(schedule: BackoffSchedule, clock: { now: number }, until: number, start = clock.now): number[] {
  const dials: number[] = [];
  let lastConnect = Number.NEGATIVE_INFINITY;
  while (clock.now <= until) {
    const wait = schedule.delay();
    if (lastConnect + wait <= clock.now) {
      lastConnect = clock.now;
      dials.push(clock.now - start);
      clock.now += 1; // a refused dial takes a moment
    } else clock.now += Math.min(wait, lastConnect + wait - clock.now);
  }
  return dials;
}

describe('the reconnect backoff', () => {
  it('doubles the gap between attempts up to the cap, without jitter when random() is 0', () => {
    const clock = { now: 1_000_000 };
    const schedule = backoffSchedule(
      { minMs: 100, maxMs: 1_000 },
      () => clock.now,
      () => 0,
    );
    const dials = dialTimes(schedule, clock, clock.now + 5_000);
    const gaps = dials.slice(1).map((t, i) => t - dials[i]!);
    expect(dials[0]).toBe(0);
    expect(gaps.slice(0, 5)).toEqual([100, 200, 400, 800, 1_000]);
    expect(new Set(gaps.slice(4))).toEqual(new Set([1_000]));
  });

  it('stretches each gap by at most a fifth at random', () => {
    const clock = { now: 0 };
    const schedule = backoffSchedule(
      { minMs: 100, maxMs: 10_000 },
      () => clock.now,
      () => 0.999,
    );
    const dials = dialTimes(schedule, clock, 3_000);
    const gaps = dials.slice(1).map((t, i) => t - dials[i]!);
    expect(gaps.slice(0, 4)).toEqual([120, 240, 480, 960]);
  });

  it('starts again from the shortest gap after reset (a connection was made)', () => {
    const clock = { now: 0 };
    const schedule = backoffSchedule(
      { minMs: 50, maxMs: 400 },
      () => clock.now,
      () => 0,
    );
    dialTimes(schedule, clock, 2_000);
    schedule.reset();
    const again = dialTimes(schedule, clock, clock.now + 200);
    expect(again.slice(0, 3)).toEqual([0, 50, 150]);
  });

  it('gives the waits of the first-connection loop', () => {
    const schedule = backoffSchedule({ minMs: 250, maxMs: 30_000 }, Date.now, () => 0);
    expect([0, 1, 2, 6, 7, 40].map((k) => schedule.afterFailure(k))).toEqual([250, 500, 1_000, 16_000, 30_000, 30_000]);
  });
});
