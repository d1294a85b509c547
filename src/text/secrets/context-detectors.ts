// Credentials that only their context gives away: a value assigned to a password-like key, a
// password inside a URL, an AWS secret key next to its name, a long token after "Bearer". The
// value must look real: templates, env references, masks and example words pass (placeholders.ts).
import type { Detector, SecretKind } from './detector.js';
import { isCodeOrPath, isExampleHost, isPlaceholderValue, isStandInUser } from './placeholders.js';
import { charClasses, looksRandom, shannonEntropy } from './randomness.js';

/** Keys whose value is a secret. They must end the key: `secretName:` or `password_hash:` are not. */
const SECRET_KEY =
  '(password|passwd|passphrase|pwd|secret|secret[_-]?key|api[_-]?key|(?:access|auth|api|bearer|refresh|session)[_-]?token)';
const AWS_SECRET_KEY = '(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)';
/** `=`, `:`, `:=` or `=>`, on the key's own line. */
const ASSIGN = `["']?[ \\t]*(?::=|=>|[:=])[ \\t]*`;
/** A quoted value, or an unquoted one up to a delimiter. */
const VALUE = `(?:"([^"\\n]{1,256})"|'([^'\\n]{1,256})'|\`([^\`\\n]{1,256})\`|([^\\s"'\`,;&()<>{}\\[\\]]{1,256}))`;

const SECRET_KEY_NAME = new RegExp(`${SECRET_KEY}$`, 'i');
const AWS_SECRET_KEY_NAME = new RegExp(`${AWS_SECRET_KEY}$`, 'i');

/**
 * A password-like value that is not a stand-in: eight characters or more, no spaces, not code,
 * and varied — three character classes, or twelve and more mixing letters and digits.
 */
export function isRealLookingSecretValue(value: string, key?: string): boolean {
  if (value.length < 8 || /\s/.test(value)) return false;
  if (isPlaceholderValue(value, key ? { key } : {}) || isCodeOrPath(value)) return false;
  if (/^(?:true|false|null|none|nil|undefined)$/i.test(value) || /^[+-]?\d+(?:\.\d+)?$/.test(value)) return false;
  const classes = charClasses(value);
  if (classes.count >= 3) return true;
  return value.length >= 12 && classes.digit && (classes.lower || classes.upper) && shannonEntropy(value) >= 3;
}

const isAwsSecret = (value: string) => /^[A-Za-z0-9/+]{40}$/.test(value) && looksRandom(value, { minClasses: 3 });

/** For a JSON field: the kind of secret `value` is under `key` (`{"password": "…"}`), if any. */
export function secretKindOfField(key: string, value: string): SecretKind | undefined {
  if (AWS_SECRET_KEY_NAME.test(key) && isAwsSecret(value)) return 'aws_secret_access_key';
  if (SECRET_KEY_NAME.test(key) && isRealLookingSecretValue(value, key)) return 'password_assignment';
  return undefined;
}

const valueOf = (m: RegExpExecArray, first: number) => m[first] ?? m[first + 1] ?? m[first + 2] ?? m[first + 3] ?? '';

export const contextDetectors: Detector[] = [
  {
    kind: 'aws_secret_access_key',
    keywords: ['secret'],
    pattern: new RegExp(`${AWS_SECRET_KEY}${ASSIGN}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`, 'gid'),
    group: 1,
    accept: (s) => isAwsSecret(s),
  },
  {
    // scheme://user:password@host. A short or empty password (u:p@, user:@), a port (host:8080@), a template
    // (<password>, ${PW}), a mask (****) or an example word (password, changeme, the user name) pass.
    kind: 'url_password',
    keywords: ['://'],
    pattern: /\b[a-z][a-z0-9+.-]{1,30}:\/\/([^\s:@/?#'"<>`]{0,128}):([^\s@/?#'"<>`]{1,256})@([A-Za-z0-9[][A-Za-z0-9.:[\]-]{0,253})/dgi,
    group: 2,
    accept: (pw, m) => {
      let plain = pw;
      try {
        plain = decodeURIComponent(pw);
      } catch {
        // not percent-encoded as a URL would be: judge it as written
      }
      if (plain.length < 6 || /^\d{1,5}$/.test(plain) || isPlaceholderValue(plain, { user: m[1]! })) return false;
      if (isExampleHost(m[3]!.replace(/:\d*$/, ''))) return false;
      // `https://user:he%2F%2Fo@…` is an example by its user name: only a strong password counts there.
      return !isStandInUser(m[1]!) || isRealLookingSecretValue(plain);
    },
  },
  {
    // password = "…", PASSWORD=…, "api_key": "…", secret: …, auth_token := "…".
    kind: 'password_assignment',
    keywords: ['pass', 'pwd', 'secret', 'key', 'token'],
    pattern: new RegExp(`${SECRET_KEY}${ASSIGN}${VALUE}`, 'gid'),
    group: [2, 3, 4, 5],
    accept: (_s, m, text) => {
      // An unquoted value followed by `(`, `,`, `)`, `<` or `[` is code: a call, a parameter's type (`password: Uint8Array,`).
      if (m[5] !== undefined && /[(),<[]/.test(text[m.index + m[0].length] ?? '')) return false;
      return isRealLookingSecretValue(valueOf(m, 2), m[1]);
    },
  },
  {
    // Authorization: Bearer <token>. Templates ($TOKEN, <token>) fall outside the alphabet.
    kind: 'bearer_token',
    keywords: ['bearer'],
    pattern: /\b[Bb]earer[ \t]+([A-Za-z0-9._~+/-]{20,1000}=*)(?![A-Za-z0-9._~+/=-])/dg,
    group: 1,
    accept: (s) => looksRandom(s, { lettersAndDigits: true }),
  },
];
