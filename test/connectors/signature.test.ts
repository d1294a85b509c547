// The webhook signature checks (docs/connectors.md, "Signatures"): GitHub's with its documented test vector, Slack's with its docs' worked example.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubSignatureValid, hmacSha256HexMatches, SLACK_MAX_SKEW_S, slackRequestValid } from '../../src/connectors/signature.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const VECTOR = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('GitHub webhook signatures', () => {
  it('accepts the documented test vector', () => {
    expect(githubSignatureValid("It's a Secret to Everybody", bytes('Hello, World!'), VECTOR)).toBe(true);
  });

  it('refuses another body, another secret, a missing prefix, a short or non-hex digest, no header', () => {
    const secret = "It's a Secret to Everybody";
    expect(githubSignatureValid(secret, bytes('Hello, World?'), VECTOR)).toBe(false);
    expect(githubSignatureValid('another secret', bytes('Hello, World!'), VECTOR)).toBe(false);
    expect(githubSignatureValid(secret, bytes('Hello, World!'), VECTOR.slice('sha256='.length))).toBe(false);
    expect(githubSignatureValid(secret, bytes('Hello, World!'), VECTOR.slice(0, -2))).toBe(false);
    expect(githubSignatureValid(secret, bytes('Hello, World!'), `${VECTOR}00`)).toBe(false);
    expect(githubSignatureValid(secret, bytes('Hello, World!'), VECTOR.replace(/e/g, 'g'))).toBe(false);
    expect(githubSignatureValid(secret, bytes('Hello, World!'), 'sha1=' + VECTOR.slice(7))).toBe(false);
    expect(githubSignatureValid(secret, bytes('Hello, World!'), undefined)).toBe(false);
  });

  it('hashes the raw bytes: a re-serialised body does not verify', () => {
    const raw = '{"a": 1}';
    const sig = createHmac('sha256', 's').update(raw).digest('hex');
    expect(hmacSha256HexMatches('s', bytes(raw), sig)).toBe(true);
    expect(hmacSha256HexMatches('s', bytes(JSON.stringify(JSON.parse(raw))), sig)).toBe(false);
    expect(hmacSha256HexMatches('s', bytes(raw), sig.toUpperCase())).toBe(true);
  });
});

// Slack's own worked example ("Verifying requests from Slack", api.slack.com/authentication/verifying-requests-from-slack):
// this secret, timestamp and slash-command body give this signature.
const SLACK = {
  secret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: '1531420618',
  body: 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};

describe('Slack request signatures', () => {
  const at = Number(SLACK.timestamp);
  const check = (over: Partial<typeof SLACK> = {}, now = at) => {
    const s = { ...SLACK, ...over };
    return slackRequestValid(s.secret, bytes(s.body), s.timestamp, s.signature, now);
  };

  it("accepts Slack's documented example, up to five minutes either side of its timestamp", () => {
    expect(check()).toEqual({ ok: true });
    expect(check({}, at + SLACK_MAX_SKEW_S).ok).toBe(true);
    expect(check({}, at - SLACK_MAX_SKEW_S).ok).toBe(true);
  });

  it('refuses a stale or future timestamp, another body, timestamp or secret, a missing v0= prefix, no headers', () => {
    expect(check({}, at + SLACK_MAX_SKEW_S + 1)).toMatchObject({ ok: false, reason: expect.stringMatching(/five minutes/) });
    expect(check({}, at - SLACK_MAX_SKEW_S - 1).ok).toBe(false);
    expect(check({ body: SLACK.body.replace('roadrunner', 'coyote') }).ok).toBe(false);
    expect(check({ timestamp: String(at + 1) }, at).ok).toBe(false);
    expect(check({ secret: 'another secret' }).ok).toBe(false);
    expect(check({ signature: SLACK.signature.slice(3) }).ok).toBe(false);
    expect(check({ signature: SLACK.signature.slice(0, -2) }).ok).toBe(false);
    expect(check({ signature: SLACK.signature.replace('v0=', 'v1=') }).ok).toBe(false);
    expect(slackRequestValid(SLACK.secret, bytes(SLACK.body), undefined, SLACK.signature, at)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/Timestamp/),
    });
    expect(slackRequestValid(SLACK.secret, bytes(SLACK.body), SLACK.timestamp, undefined, at).ok).toBe(false);
    expect(check({ timestamp: '1531420618.5' }).ok).toBe(false);
  });
});
