// Whether a password-like value is a stand-in (docs and example configs are full of them) or
// looks like a real one. A stand-in is a template (`<password>`, `${DB_PASSWORD}`, `{{ .pw }}`),
// a reference to where the secret lives (`process.env.X`, `secretKeyRef`), a mask (`****`,
// `...`), or made only of stand-in words (`changeme`, `your-password-here`, `password1`,
// `P@ssw0rd`, `postgres`).
import { wordsOf } from './randomness.js';

/** Template and reference syntax: the value says where a secret comes from, not what it is. */
const TEMPLATE = /^[$%]|^\[.*\]$|^\{.*\}$|\$\{|\{\{|\}\}|<|>|^__\w+__$|…|\.\.\.|^\*+$|^#+$|^x+$|^-+$/i;
const REFERENCE =
  /process\.env|import\.meta\.env|os\.environ|getenv|\benv\(|\bENV\[|secretKeyRef|valueFrom|^vault:|^ssm:|^arn:|^sm:\/\/|^op:\/\/|^file:|^env:/i;

/** Words stand-ins are made of. A value built only from these (and digits or punctuation) is an example. */
const STAND_IN_WORDS = [
  'a',
  'an',
  'the',
  'my',
  'your',
  'our',
  'some',
  'any',
  'this',
  'that',
  'it',
  'me',
  'here',
  'there',
  'goes',
  'to',
  'with',
  'for',
  'of',
  'and',
  'or',
  'super',
  'very',
  'strong',
  'long',
  'random',
  'new',
  'old',
  'real',
  'actual',
  'default',
  'same',
  'other',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'pass',
  'pwd',
  'pw',
  'passphrase',
  'phrase',
  'word',
  'pin',
  'code',
  'credential',
  'credentials',
  'token',
  'key',
  'keys',
  'api',
  'access',
  'auth',
  'private',
  'value',
  'string',
  'str',
  'text',
  'bytes',
  'required',
  'optional',
  'type',
  'hash',
  'change',
  'changeme',
  'set',
  'enter',
  'insert',
  'put',
  'replace',
  'fill',
  'in',
  'generate',
  'generated',
  'use',
  'example',
  'examples',
  'sample',
  'dummy',
  'fake',
  'mock',
  'stub',
  'placeholder',
  'redacted',
  'hidden',
  'masked',
  'omitted',
  'removed',
  'test',
  'tests',
  'testing',
  'tester',
  'demo',
  'dev',
  'development',
  'local',
  'localhost',
  'prod',
  'production',
  'staging',
  'stage',
  'qa',
  'ci',
  'db',
  'database',
  'postgres',
  'postgresql',
  'mysql',
  'mariadb',
  'mongo',
  'mongodb',
  'redis',
  'rabbit',
  'rabbitmq',
  'amqp',
  'kafka',
  'sql',
  'pg',
  'user',
  'users',
  'username',
  'name',
  'login',
  'account',
  'admin',
  'administrator',
  'root',
  'guest',
  'anonymous',
  'anon',
  'owner',
  'service',
  'app',
  'application',
  'client',
  'server',
  'host',
  'node',
  'bot',
  'system',
  'sys',
  'default',
  'none',
  'null',
  'nil',
  'undefined',
  'empty',
  'blank',
  'true',
  'false',
  'yes',
  'no',
  'off',
  'on',
  'foo',
  'bar',
  'baz',
  'qux',
  'quux',
  'abc',
  'xyz',
  'asdf',
  'qwerty',
  'letmein',
  'hunter',
  'welcome',
  'opensesame',
  'sesame',
  'open',
  'top',
  'topsecret',
  'shh',
  'hush',
  'not',
  'is',
  'be',
  'do',
  'no',
  'alice',
  'bob',
  'carol',
  'eve',
  'john',
  'jane',
  'doe',
  'smith',
];
const WORDS = new Set(STAND_IN_WORDS);
const LONGEST_WORD = Math.max(...STAND_IN_WORDS.map((w) => w.length));

/** Whether `letters` (lowercase a–z) splits entirely into stand-in words. */
function splitsIntoStandInWords(letters: string): boolean {
  if (!letters) return true;
  const ok = new Array<boolean>(letters.length + 1).fill(false);
  ok[0] = true;
  for (let end = 1; end <= letters.length; end++) {
    for (let len = 1; len <= Math.min(LONGEST_WORD, end); len++) {
      if (ok[end - len] && WORDS.has(letters.slice(end - len, end))) {
        ok[end] = true;
        break;
      }
    }
  }
  return ok[letters.length]!;
}

/** Words that mark the whole value a stand-in wherever they stand in it: `pa-YOUR_VOYAGE_API_KEY`, `sk-example-key`. */
const MARKER_WORDS = new Set([
  'your',
  'yours',
  'example',
  'examples',
  'placeholder',
  'replace',
  'changeme',
  'dummy',
  'fake',
  'sample',
  'redacted',
  'insert',
  'here',
  'todo',
  'fixme',
  'tbd',
  'xxx',
  'xxxx',
]);

/** Words that make a value the name of a secret (a variable: `dbPassword`), not the secret. */
const NAMING_WORDS = new Set(['password', 'passwd', 'pwd', 'secret', 'token', 'apikey', 'credential', 'credentials']);

const LEET: Record<string, string> = { '@': 'a', '4': 'a', '3': 'e', '1': 'i', '!': 'i', '0': 'o', $: 's', '5': 's', '7': 't' };

/** A stand-in for a password, not a password: template, reference, mask, or stand-in words only. */
export function isPlaceholderValue(value: string, context: { user?: string; key?: string } = {}): boolean {
  const v = value.trim();
  if (v.length < 3) return true;
  if (TEMPLATE.test(v) || REFERENCE.test(v)) return true;
  if (/^(.)\1*$/.test(v)) return true;
  const lower = v.toLowerCase();
  if (context.user && lower === context.user.toLowerCase()) return true;
  if (context.key && lower === context.key.toLowerCase()) return true;
  // `AuthenticationMD5Password`, `dbPassword`: a name for the secret (a variable), not the secret.
  if (wordsOf(v).some((w) => MARKER_WORDS.has(w) || NAMING_WORDS.has(w))) return true;
  // "password1", "my-secret-123", "your_password_here": the letters alone are stand-in words.
  if (splitsIntoStandInWords(lower.replace(/[^a-z]/g, ''))) return true;
  // "P@ssw0rd", "s3cr3t": the same after undoing the usual substitutions.
  const unleet = [...lower].map((c) => LEET[c] ?? c).join('');
  if (splitsIntoStandInWords(unleet.replace(/[^a-z]/g, ''))) return true;
  // Base64 of readable words ("bm90IG15IHJlYWwgcGFzc3dvcmQ=" is "not my real password"): judge the words.
  const decoded = printableBase64(v);
  return decoded !== undefined && isPlaceholderValue(decoded, context);
}

/** The text a base64 value encodes, when it is printable ASCII (a random secret decodes to bytes). */
function printableBase64(v: string): string | undefined {
  if (v.length < 8 || v.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(v)) return undefined;
  const text = Buffer.from(v, 'base64').toString('latin1');
  return /^[\x20-\x7e]+$/.test(text) ? text : undefined;
}

/** User names that mark a URL as an example: `https://user:…@`, `scheme://username:…@`. */
export const isStandInUser = (user: string) =>
  /^(?:user|username|name|login|me|you|foo|someone|somebody|account|myuser|youruser|anonymous|anon|guest)$/i.test(user);

/** Hosts reserved for examples (RFC 2606, RFC 6761): a URL there is an example by definition. */
export const isExampleHost = (host: string) => /^(?:[^.]+\.)*(?:example\.(?:com|org|net)|example|test|invalid)$/i.test(host);

/** Code, not a value: a dotted path (`config.db.password`), a call, a path on disk, a YAML tag. */
export function isCodeOrPath(value: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)+$/.test(value) || /[()]/.test(value) || /^(?:\/|\.\.?\/|~\/|!)/.test(value);
}
