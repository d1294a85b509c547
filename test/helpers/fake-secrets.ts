// Credential-shaped strings for the secrets guard's tests, built at run time from a seeded
// generator so that no secret-shaped literal sits in the repository (and none is ever real).
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { rng } from '../../bench/synthetic.js';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE64URL = `${BASE62}-_`;
const BASE64 = `${BASE62}+/`;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const DIGITS = '0123456789';
const HEX = '0123456789abcdef';

/** Strings from the benchmarks' seeded generator (mulberry32), so every run sees the same ones. */
export function seeded(seed: number) {
  const { next } = rng(seed);
  const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  return {
    base62: (n: number) => pick(BASE62, n),
    base64url: (n: number) => pick(BASE64URL, n),
    base64: (n: number) => pick(BASE64, n),
    base32: (n: number) => pick(BASE32, n),
    digits: (n: number) => `${pick(DIGITS.slice(1), 1)}${pick(DIGITS, n - 1)}`,
    hex: (n: number) => pick(HEX, n),
    bytes: (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256))),
  };
}

const b64urlJson = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function fakeJwt(claims: Record<string, unknown> = { sub: 'user-42', iat: 1_700_000_000 }, alg = 'HS256'): string {
  const head = `${b64urlJson({ alg, typ: 'JWT' })}.${b64urlJson(claims)}`;
  return `${head}.${createHmac('sha256', 'test-only-signing-key').update(head).digest('base64url')}`;
}

/** A freshly generated private key in PEM (PKCS#8), never stored anywhere. */
export function fakePrivateKeyPem(type: 'ed25519' | 'ec' = 'ec'): string {
  const { privateKey } = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) : generateKeyPairSync('ed25519');
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** One credential of each kind, in the shape its issuer uses (lengths and alphabets), from `seed`. */
export function fakeCredentials(seed = 1) {
  const r = seeded(seed);
  const p = (prefix: string) => prefix; // keeps prefixes apart from their bodies in the source
  return {
    aws_access_key_id: `${p('AKIA')}${r.base32(16)}`,
    aws_temporary_key_id: `${p('ASIA')}${r.base32(16)}`,
    aws_secret_access_key: r.base64(40),
    github_pat: `${p('ghp_')}${r.base62(36)}`,
    github_oauth: `${p('gho_')}${r.base62(36)}`,
    github_user_to_server: `${p('ghu_')}${r.base62(36)}`,
    github_server_to_server: `${p('ghs_')}${r.base62(36)}`,
    github_refresh: `${p('ghr_')}${r.base62(36)}`,
    github_fine_grained: `${p('github_pat_')}${r.base62(22)}_${r.base62(59)}`,
    gitlab: `${p('glpat-')}${r.base62(20)}`,
    slack_bot: `${p('xoxb-')}${r.digits(12)}-${r.digits(13)}-${r.base62(24)}`,
    slack_user: `${p('xoxp-')}${r.digits(12)}-${r.digits(12)}-${r.digits(13)}-${r.hex(32)}`,
    slack_webhook: `${p('https://hooks.slack.com/services/')}T${r.base32(8)}/B${r.base32(10)}/${r.base62(24)}`,
    stripe_secret: `${p('sk_live_')}${r.base62(24)}`,
    stripe_restricted: `${p('rk_live_')}${r.base62(99)}`,
    google: `${p('AIza')}Sy${r.base64url(33)}`,
    anthropic: `${p('sk-ant-api03-')}${r.base64url(93)}AA`,
    openai_project: `${p('sk-proj-')}${r.base64url(74)}T3BlbkFJ${r.base64url(74)}`,
    openai_legacy: `${p('sk-')}${r.base62(20)}T3BlbkFJ${r.base62(20)}`,
    voyage: `${p('pa-')}${r.bytes(32).toString('base64url')}`,
    npm: `${p('npm_')}${r.base62(36)}`,
    sendgrid: `${p('SG.')}${r.base64url(22)}.${r.base64url(43)}`,
    doco: `${p('doco_')}${r.bytes(24).toString('base64url')}`,
    password: `${r.base62(6)}#${r.digits(3)}!${r.base62(4)}`,
    hexSecret: r.hex(40),
    bearer: r.base64url(40),
    /** GitHub's tokens before 2021: 40 lowercase hex, no prefix; only the name they are assigned to gives them away. */
    github_classic_hex: r.hex(40),
    /** A bot's user id (a snowflake) as base64url, a timestamp, an HMAC. */
    discord_bot: `${Buffer.from(r.digits(19)).toString('base64url')}.${r.base64url(6)}.${r.base64url(38)}`,
    /** 64 random bytes as base64: 88 characters ending in ==. */
    azure_storage_key: r.bytes(64).toString('base64'),
    twilio_api_key_sid: `${p('SK')}${r.hex(32)}`,
    twilio_api_secret: r.base62(32),
    /** What `mysql -p…` takes glued to the flag. */
    cli_password: `${r.base62(5)}${r.digits(3)}${r.base62(4)}`,
  };
}
