// Credentials with a vendor's own shape: a fixed prefix, an exact alphabet and length, and a
// random body. Each pattern is anchored on its prefix and bounded on both sides, so a longer
// identifier that merely contains one does not match, and each body must look random.
import { createHash } from 'node:crypto';
import type { Detector } from './detector.js';
import { looksRandom } from './randomness.js';

/** Not preceded or followed by another character of a base64url token. */
const B = '(?<![A-Za-z0-9_-])';
const E = '(?![A-Za-z0-9_-])';
const re = (source: string, flags = '') => new RegExp(source, `gd${flags}`);

/**
 * Keys published for everyone to use, by sha256 (so the source holds none): Azurite's and the storage emulator's
 * account key for devstoreaccount1, which opens only a local emulator.
 */
const PUBLISHED_KEYS = new Set(['0011cc25eb4320717494d2703e8cba85743e71b500283c21c8b88147992f9059']);
const isPublishedKey = (s: string) => PUBLISHED_KEYS.has(createHash('sha256').update(s).digest('hex'));

/** How far either side of a Twilio API key's SID its secret is looked for: two env lines, a call's two arguments. */
const TWILIO_PAIR_WINDOW = 300;
const ALNUM_32 = /(?<![A-Za-z0-9])[A-Za-z0-9]{32}(?![A-Za-z0-9])/g;
const isAlnum = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);

/**
 * An SID is an identifier, not a secret; with its secret (32 base62) beside it, it is a credential. The span covers
 * both, so a redaction hides the secret. Only the window is searched: each SID costs at most 600 characters.
 */
function twilioPair(m: RegExpExecArray, text: string): { start: number; end: number } | false {
  const sidEnd = m.index + m[0].length;
  const from = Math.max(0, m.index - TWILIO_PAIR_WINDOW);
  const window = text.slice(from, Math.min(text.length, sidEnd + TWILIO_PAIR_WINDOW));
  ALNUM_32.lastIndex = 0;
  for (let s = ALNUM_32.exec(window); s; s = ALNUM_32.exec(window)) {
    const at = from + s.index;
    // The window's edges may cut a longer token: judge the candidate in the whole text.
    if (isAlnum(text[at - 1]) || isAlnum(text[at + 32])) continue;
    if (looksRandom(s[0], { lettersAndDigits: true })) return { start: Math.min(m.index, at), end: Math.max(sidEnd, at + 32) };
  }
  return false;
}

export const tokenDetectors: Detector[] = [
  {
    // AKIA (long-term) and ASIA (temporary) key ids: 16 characters of base32 after the prefix.
    // AWS's documentation uses …EXAMPLE ids, which the randomness check refuses.
    kind: 'aws_access_key_id',
    keywords: ['akia', 'asia'],
    pattern: re(`\\b(?:AKIA|ASIA)([A-Z2-7]{16})\\b`),
    // Uppercase words after ASIA (ASIAPACIFICREGIONS) are not ids: a digit, or few vowels, marks base32.
    accept: (_s, m) => {
      const body = m[1]!;
      const vowels = body.replace(/[^AEIOU]/g, '').length / body.length;
      return looksRandom(body, { minClasses: 1, minEntropy: 2.5 }) && (/[2-7]/.test(body) || vowels < 0.35);
    },
  },
  {
    // Classic GitHub tokens: ghp_ (personal), gho_ (OAuth), ghu_ (user-to-server), ghs_ (server-to-server), ghr_ (refresh); 36 base62.
    kind: 'github_token',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    pattern: re(`${B}gh[pousr]_([A-Za-z0-9]{36})${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    // Fine-grained personal access tokens: github_pat_ + 22 base62 + _ + 59 base62.
    kind: 'github_fine_grained_token',
    keywords: ['github_pat_'],
    pattern: re(`${B}github_pat_([A-Za-z0-9]{22}_[A-Za-z0-9]{59})${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    kind: 'gitlab_token',
    keywords: ['glpat-'],
    pattern: re(`${B}glpat-([A-Za-z0-9_-]{20,64})(?:\\.[0-9a-z]{2}\\.[0-9a-z]{9})?${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    // xoxb-TEAM-BOT-SECRET, xoxp-TEAM-USER-TEAM-HEX, xoxa-2-…, xoxr-…: numeric groups, then a long random tail.
    // Slack's docs write xoxb-your-token or xoxb-not-a-real-token: no numeric group, no match.
    kind: 'slack_token',
    keywords: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxr-'],
    pattern: re(`${B}xox[abpr]-((?:[0-9]{1,15}-){1,3})([A-Za-z0-9]{20,256})${E}`),
    accept: (_s, m) => {
      const ids = m[1]!.split('-').filter(Boolean);
      const tail = m[2]!;
      return looksRandom(tail) && (ids.some((g) => g.length >= 8) || tail.length >= 40);
    },
  },
  {
    // Incoming webhooks (services/T…/B…/secret) and workflow triggers; the last segment is the secret.
    kind: 'slack_webhook_url',
    keywords: ['hooks.slack.com'],
    pattern: re(`https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/((?:[A-Za-z0-9]{1,20}/){2,3})([A-Za-z0-9]{16,64})${E}`),
    group: 0,
    // Slack's docs write T00000000/B00000000/XXXX…: ids of one repeated character, a masked secret.
    accept: (_s, m) =>
      looksRandom(m[2]!) &&
      m[1]!
        .split('/')
        .filter(Boolean)
        .every((seg) => new Set(seg.slice(1)).size >= 3),
  },
  {
    // Secret (sk_live_) and restricted (rk_live_) keys; publishable pk_live_ keys are public by design.
    kind: 'stripe_live_key',
    keywords: ['sk_live_', 'rk_live_'],
    pattern: re(`${B}[sr]k_live_([A-Za-z0-9]{20,247})${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    kind: 'google_api_key',
    keywords: ['aiza'],
    pattern: re(`${B}AIza([0-9A-Za-z_-]{35})${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    // sk-ant-api03-…, sk-ant-admin01-…, sk-ant-oat01-…: a kind, a two-digit version, a long random body.
    kind: 'anthropic_api_key',
    keywords: ['sk-ant-'],
    pattern: re(`${B}sk-ant-[a-z]{2,8}[0-9]{2}-([A-Za-z0-9_-]{32,200})${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    // Project, service-account and admin keys (sk-proj-…, long), and the legacy sk- + 48 base62
    // (20 + "T3BlbkFJ" + 20). A bare sk- + something shorter is another vendor's, or a stand-in.
    kind: 'openai_api_key',
    keywords: ['sk-'],
    pattern: re(`${B}sk-(?:(?:proj|svcacct|admin)-([A-Za-z0-9_-]{40,300})|([A-Za-z0-9]{48}))${E}`),
    accept: (_s, m) => {
      const body = m[1] ?? m[2]!;
      return body.includes('T3BlbkFJ') ? !/x{4,}|X{4,}/.test(body) : looksRandom(body, { lettersAndDigits: true });
    },
  },
  {
    // Voyage AI keys are pa- followed by 43 base64url characters (32 random bytes). All three of
    // lower, upper and digit must occur: pa- is also an ordinary word prefix.
    kind: 'voyage_api_key',
    keywords: ['pa-'],
    pattern: re(`${B}pa-([A-Za-z0-9_-]{43})${E}`),
    accept: (_s, m) => /[a-z]/.test(m[1]!) && /[A-Z]/.test(m[1]!) && /[0-9]/.test(m[1]!) && looksRandom(m[1]!),
  },
  {
    kind: 'npm_token',
    keywords: ['npm_'],
    pattern: re(`${B}npm_([A-Za-z0-9]{36})${E}`),
    accept: (_s, m) => looksRandom(m[1]!),
  },
  {
    kind: 'sendgrid_api_key',
    keywords: ['sg.'],
    pattern: re(`${B}SG\\.([A-Za-z0-9_-]{22})\\.([A-Za-z0-9_-]{43})${E}`),
    accept: (_s, m) => looksRandom(m[2]!),
  },
  {
    // A Discord bot's token: its user id (a snowflake, 17 to 20 digits) as base64url, a timestamp, an HMAC. The first
    // part must decode to the digits of an id, which a README's stand-in or a random string does not.
    kind: 'discord_bot_token',
    keywords: ['discord'],
    pattern: re(`${B}([MNO][A-Za-z0-9_-]{22,26})\\.[A-Za-z0-9_-]{6}\\.([A-Za-z0-9_-]{27,38})${E}`),
    group: 0,
    accept: (_s, m) => /^[1-9][0-9]{16,19}$/.test(Buffer.from(m[1]!, 'base64url').toString('latin1')) && looksRandom(m[2]!),
  },
  {
    // An Azure storage account's key, in its connection string (AccountName=…;AccountKey=…): 64 random bytes as base64.
    kind: 'azure_storage_account_key',
    keywords: ['accountkey'],
    pattern: re(`(?<![A-Za-z0-9])AccountKey["']?[ \\t]*[:=][ \\t]*["']?([A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])`, 'i'),
    group: 1,
    accept: (s) => looksRandom(s) && !isPublishedKey(s),
  },
  {
    // A Twilio API key: its SID (SK + 32 hex) with its secret within a few lines (twilioPair).
    kind: 'twilio_api_key',
    keywords: ['sk'],
    pattern: re(`(?<![A-Za-z0-9])SK([0-9a-fA-F]{32})(?![A-Za-z0-9])`),
    group: 0,
    accept: (_s, m, text) => looksRandom(m[1]!) && twilioPair(m, text),
  },
  {
    // Doco's own bearer tokens (src/auth/tokens.ts): doco_ + 24 random bytes as base64url. Our
    // identifiers (doco_capture, doco_brief) are lowercase words: upper and lower must both occur.
    kind: 'doco_token',
    keywords: ['doco_'],
    pattern: re(`${B}doco_([A-Za-z0-9_-]{32})${E}`),
    accept: (_s, m) => /[a-z]/.test(m[1]!) && /[A-Z]/.test(m[1]!) && looksRandom(m[1]!),
  },
];
