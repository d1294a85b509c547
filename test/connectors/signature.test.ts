// The webhook signature check (CONNECTORS.md "HMAC rule" and §1's test vector).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubSignatureValid, hmacSha256HexMatches } from '../../src/connectors/signature.js';

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
