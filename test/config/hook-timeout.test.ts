// DOCO_HOOK_TIMEOUT_MS has one rule (src/config/hook-timeout.ts): the hook, which loads no schema,
// and the environment's schema every other command loads accept and refuse the same values, in
// the same words.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { hookTimeout } from '../../src/config/hook-timeout.js';

const refusal = (value: string) => {
  try {
    loadConfig({ DOCO_HOOK_TIMEOUT_MS: value });
    return undefined;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems[0];
  }
};

describe('DOCO_HOOK_TIMEOUT_MS', () => {
  it.each(['abc', '0', '-1', '1.5', ' ', 'NaN', '2147483648', '20000', '1', '300', '2147483647'])(
    '%j: the hook and the environment agree',
    (value) => {
      const hook = hookTimeout({ DOCO_HOOK_TIMEOUT_MS: value });
      expect(hook.problem).toBe(refusal(value));
      expect(hook.ms).toBe(hook.problem ? 5000 : Number(value));
    },
  );

  it('unset or empty: the default, and no problem', () => {
    expect(hookTimeout({})).toEqual({ ms: 5000, source: 'default' });
    expect(hookTimeout({ DOCO_HOOK_TIMEOUT_MS: '' })).toEqual({ ms: 5000, source: 'default' });
    expect(refusal('')).toBeUndefined();
  });
});
