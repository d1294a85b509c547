// The secrets detectors, kind by kind: each finds its credential in the contexts it turns up in
// (prose, env files, JSON, YAML, URLs, headers) and passes the stand-ins docs use instead.
// Credentials are generated (test/helpers/fake-secrets.ts); none is real.
import { describe, expect, it } from 'vitest';
import { SECRET_KINDS, type SecretKind } from '../../../src/text/secrets/detector.js';
import { findSecretsInFields } from '../../../src/text/secrets/fields.js';
import { findSecrets, redactSecrets } from '../../../src/text/secrets/scan.js';
import { fakeCredentials, fakeJwt, fakePrivateKeyPem } from '../../helpers/fake-secrets.js';

const c = fakeCredentials(7);
const kindsIn = (text: string) => findSecrets(text).map((f) => f.kind);

/** Positive cases: each text must yield exactly the kind named. */
const positives: [SecretKind, string][] = [
  ['aws_access_key_id', `aws_access_key_id = ${c.aws_access_key_id}`],
  ['aws_access_key_id', `The CI user's key is ${c.aws_temporary_key_id}.`],
  ['aws_secret_access_key', `AWS_SECRET_ACCESS_KEY=${c.aws_secret_access_key}`],
  ['aws_secret_access_key', `{"SecretAccessKey": "${c.aws_secret_access_key}"}`],
  ['github_token', `export GITHUB_TOKEN=${c.github_pat}`],
  ['github_token', `oauth: ${c.github_oauth}`],
  ['github_token', `user-to-server ${c.github_user_to_server} in the app`],
  ['github_token', `installation token (${c.github_server_to_server})`],
  ['github_token', `refresh with ${c.github_refresh}`],
  ['github_fine_grained_token', `token: ${c.github_fine_grained}`],
  ['gitlab_token', `GITLAB_TOKEN=${c.gitlab}`],
  ['slack_token', `SLACK_BOT_TOKEN=${c.slack_bot}`],
  ['slack_token', `user token ${c.slack_user}`],
  ['slack_webhook_url', `Alerts post to ${c.slack_webhook} on failure.`],
  ['stripe_live_key', `STRIPE_KEY=${c.stripe_secret}`],
  ['stripe_live_key', `restricted: ${c.stripe_restricted}`],
  ['google_api_key', `https://maps.googleapis.com/maps/api/js?key=${c.google}&callback=init`],
  ['anthropic_api_key', `ANTHROPIC_API_KEY=${c.anthropic}`],
  ['openai_api_key', `OPENAI_API_KEY=${c.openai_project}`],
  ['openai_api_key', `openai.api_key = "${c.openai_legacy}"`],
  ['voyage_api_key', `VOYAGE_API_KEY=${c.voyage}`],
  ['npm_token', `//registry.npmjs.org/:_authToken=${c.npm}`],
  ['sendgrid_api_key', `SENDGRID_API_KEY=${c.sendgrid}`],
  ['doco_token', `DOCO_TOKEN=${c.doco}`],
  ['jwt', `curl -H "Authorization: Bearer ${fakeJwt()}" https://api.internal/v1/me`],
  ['jwt', `session cookie: ${fakeJwt({ iss: 'auth.internal', exp: 1_900_000_000 }, 'RS256')}`],
  ['url_password', `DATABASE_URL=postgres://app:${c.password.replace(/[#!]/g, 'q')}@db.internal:5432/app`],
  ['url_password', 'redis://:Zq81xLw0Pk3m@cache.internal:6379/0'],
  ['url_password', 'amqps://billing:w7Ks%23p2Lq9@mq.prod.internal/vhost'],
  ['password_assignment', `DB_PASSWORD=${c.password}`],
  ['password_assignment', `password: "${c.password}"`],
  ['password_assignment', `  smtp_auth_password: '${c.password}'`],
  ['password_assignment', `{"client_secret": "${c.hexSecret}"}`],
  ['password_assignment', `secret := "${c.password}"`],
  ['bearer_token', `Authorization: Bearer ${c.bearer}`],
  ['password_assignment', `DB_PASS=${c.password}`],
  ['password_assignment', `export SMTP_PASS='${c.cli_password}'`],
  ['password_assignment', `BOT_TOKEN=${c.bearer}`],
  ['password_assignment', `  webhook-token: "${c.hexSecret}"`],
  ['password_assignment', `SIGNING_KEY=${c.hexSecret}`],
  ['password_assignment', `{"db_pass": "${c.password}"}`],
  ['github_token', `GITHUB_TOKEN=${c.github_classic_hex}`],
  ['github_token', `  gh_token: "${c.github_classic_hex}"`],
  ['github_token', `HOMEBREW_GITHUB_API_TOKEN=${c.github_classic_hex}`],
  ['github_token', `curl -H "Authorization: token ${c.github_classic_hex}" https://api.github.com/user`],
  ['discord_bot_token', `DISCORD_TOKEN=${c.discord_bot}`],
  ['discord_bot_token', `await client.login('${c.discord_bot}'); // the discord.js client`],
  [
    'azure_storage_account_key',
    `DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=${c.azure_storage_key};EndpointSuffix=core.windows.net`,
  ],
  ['azure_storage_account_key', `"connectionString": "AccountName=acme;AccountKey=${c.azure_storage_key}"`],
  ['twilio_api_key', `const client = twilio('${c.twilio_api_key_sid}', '${c.twilio_api_secret}', { accountSid });`],
  ['twilio_api_key', `TWILIO_API_KEY=${c.twilio_api_key_sid}\nTWILIO_API_SECRET=${c.twilio_api_secret}`],
  ['twilio_api_key', `The secret ${c.twilio_api_secret} goes with the API key ${c.twilio_api_key_sid}.`],
  ['command_line_password', `mysql -u root -p${c.cli_password} app`],
  ['command_line_password', `mysqldump -uadmin -p'${c.password}' --all-databases > all.sql`],
  ['command_line_password', `mariadb -h db.internal -p"${c.cli_password}"`],
  ['command_line_password', `mysqldump \\\n  --single-transaction \\\n  -u backup -p${c.cli_password} \\\n  shop`],
  ['github_token', `set \`${c.github_pat}\` as the secret`],
  ['github_token', `${c.github_pat}`],
  ['google_api_key', `"${c.google}".`],
];

describe('each kind is found, and only where it is', () => {
  it.each(positives.map(([kind, text], i) => [kind, i, text] as const))('%s (case %i)', (kind, _i, text) => {
    expect(kindsIn(text)).toEqual([kind]);
  });

  it('covers at least 15 kinds, every listed kind with a positive case', () => {
    expect(SECRET_KINDS.length).toBeGreaterThanOrEqual(15);
    const covered = new Set(positives.map(([k]) => k));
    covered.add('private_key');
    expect(SECRET_KINDS.filter((k) => !covered.has(k))).toEqual([]);
  });

  it('finds PEM private keys (EC, Ed25519, RSA/OpenSSH headers), with or without the END line', () => {
    const ec = fakePrivateKeyPem('ec');
    const ed = fakePrivateKeyPem('ed25519');
    expect(kindsIn(`Deploy key:\n\n${ec}\nKeep it safe.`)).toEqual(['private_key']);
    expect(kindsIn(ed)).toEqual(['private_key']);
    const body = ec.split('\n').slice(1, -2).join('\n');
    expect(kindsIn(`-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`)).toEqual(['private_key']);
    expect(kindsIn(`-----BEGIN OPENSSH PRIVATE KEY-----\n${body}`)).toEqual(['private_key']);
    // Pasted as an escaped JSON string, with literal \n between the lines, or as a string concatenated line by line.
    expect(kindsIn(JSON.stringify({ key: ec }))).toEqual(['private_key']);
    const lines = ec.trim().split('\n');
    expect(kindsIn(`const key =\n${lines.map((l) => `  "${l}\\n"`).join(' +\n')};`)).toEqual(['private_key']);
    expect(
      kindsIn(
        `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0011\n\n${body}\n-----END RSA PRIVATE KEY-----`,
      ),
    ).toEqual(['private_key']);
  });

  it('finds every generated credential of each kind across 200 seeds', () => {
    const missed: string[] = [];
    for (let seed = 1; seed <= 200; seed++) {
      const g = fakeCredentials(seed);
      const texts = [
        ...[
          g.aws_access_key_id,
          g.github_pat,
          g.github_fine_grained,
          g.gitlab,
          g.slack_bot,
          g.slack_user,
          g.slack_webhook,
          g.stripe_secret,
          g.google,
          g.anthropic,
          g.openai_project,
          g.openai_legacy,
          g.voyage,
          g.npm,
          g.sendgrid,
          g.doco,
        ].map((v) => `value ${v} end`),
        `aws_secret_access_key: ${g.aws_secret_access_key}`,
        `GITHUB_TOKEN=${g.github_classic_hex}`,
        `DISCORD_BOT_TOKEN=${g.discord_bot}`,
        `AccountName=acme;AccountKey=${g.azure_storage_key};EndpointSuffix=core.windows.net`,
        `twilio('${g.twilio_api_key_sid}', '${g.twilio_api_secret}')`,
        `mysql -h db -u app -p${g.cli_password} app`,
        `DB_PASS=${g.password}`,
        `PASSWORD=${g.password}`,
        `Authorization: Bearer ${g.bearer}`,
      ];
      for (const t of texts) if (findSecrets(t).length !== 1) missed.push(`seed ${seed}: ${t.slice(0, 30)}`);
    }
    expect(missed).toEqual([]);
  });

  it('names the line and column of the secret', () => {
    expect(findSecrets(`first line\nsecond line\n  token ${c.github_pat}`)).toEqual([{ kind: 'github_token', line: 3, column: 9 }]);
  });

  it('reports two secrets in one text, and one secret once when two detectors could claim it', () => {
    expect(kindsIn(`GITHUB_TOKEN=${c.github_pat}\nSTRIPE=${c.stripe_secret}`)).toEqual(['github_token', 'stripe_live_key']);
    // An assignment holding a vendor key is named by the vendor's kind, once.
    expect(kindsIn(`api_key = "${c.google}"`)).toEqual(['google_api_key']);
    expect(kindsIn(`Authorization: Bearer ${fakeJwt()}`)).toEqual(['jwt']);
  });
});

describe('stand-ins pass', () => {
  const negatives: [string, string][] = [
    ['AWS documentation ids', 'AKIAIOSFODNN7EXAMPLE and aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['uppercase words after ASIA', 'ASIAPACIFICREGIONS'],
    [
      'masked GitHub tokens',
      'ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx ghp_abcdefghijklmnopqrstuvwxyz0123456789 ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij',
    ],
    ['a longer identifier holding a prefix', `my_ghp_${'a1B2'.repeat(9)}_suffix`],
    ['Slack docs tokens', 'xoxb-your-token xoxb-not-a-real-token-this-will-not-work xoxp-1234-5678-abcdef'],
    ['a masked Slack webhook', 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'],
    ['Stripe test and publishable keys', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc pk_live_51H8xQ2eZvKYlo2C8h3mN'],
    ['elided vendor keys', 'sk-ant-api03-... sk-proj-... sk-... pa-... AIza... npm_... sk-your-openai-key-here pa-your-voyage-key-here'],
    ['a shorter sk- key of another vendor', 'sk-0123456789abcdef0123456789abcdef'],
    ['ordinary pa- words', 'a pa-system, pa-announcements-for-the-whole-building-and-more-besides'],
    ['Doco identifiers', 'doco_capture doco_changeset doco_some_long_identifier_here_x decision_01K8Z3QH4V6N1D9XK7R2M5T8WB'],
    [
      'a public key block',
      '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAbQdilhn9Vc2s0lTGpPz32VVKPFBz5CUXDi03UYGqJko=\n-----END PUBLIC KEY-----',
    ],
    ['an elided private key block', '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----'],
    ['a private key named in prose', 'Never commit the -----BEGIN OPENSSH PRIVATE KEY----- file.'],
    [
      'a private key named in prose, a public key further on',
      `Never commit the -----BEGIN OPENSSH PRIVATE KEY----- file.\n\nThe integrity of the package: sha512-${'z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=='}`,
    ],
    [
      'base64url JSON without alg',
      `${Buffer.from('{"foo":"bar"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.c2lnbmF0dXJlLW5vdC1hLWp3dA`,
    ],
    ['an unsigned JWT', fakeJwt({ sub: 'x' }, 'none')],
    ['a JWT-shaped README example without claims', fakeJwt({ some: 'payload' })],
    [
      'URLs without passwords',
      'postgres://user@host/db postgres://postgres@configs-db.weave.local/configs redis://user:@cache git+ssh://git@github.com/o/r.git',
    ],
    ['URL templates', 'postgresql://<user>:<password>@<host>:<port>/<db> mysql://app:${MYSQL_PASSWORD}@db/app http://admin:****@host/'],
    [
      'URL stand-ins',
      'https://user:pass@example.com/ postgres://u:p@db/app amqp://guest:guest@localhost postgres://postgres:postgres@localhost/postgres',
    ],
    ['URL on a reserved example host', 'https://deploy:Zq81xLw0Pk3m@ci.example.com/hook'],
    ['a weak password with a stand-in user', 'https://user:he%2F%2Fo@pypi.company.com/simple'],
    ['a port before @', 'http://localhost:8080@foo tcp://0.0.0.0:26657'],
    ['password templates', 'password: <your-password>\npassword = ${DB_PASSWORD}\npassword: "{{ .Values.password }}"\nsecret = %(SECRET)s'],
    ['env references', 'api_key = os.environ["API_KEY"]\nconst secret = process.env.SESSION_SECRET;\npassword := os.Getenv("PASSWORD")'],
    [
      'example passwords',
      'password: changeme\npassword = "password"\npassword: password1\nadmin_password: P@ssw0rd\nsecret=topsecret\nsession_token: "your_session_token_here"',
    ],
    ['base64 of a stand-in', "password: 'bm90IG15IHJlYWwgcGFzc3dvcmQ='"],
    [
      'code',
      'token := random.Next()\ncfg.Password = config.Database.Password\npbkdf2(password: Uint8Array, salt: Uint8Array)\nconst workSecret = opts?.workSecret || x\nexports.AuthenticationMD5Password = AuthenticationMD5Password;',
    ],
    ['types and empties', 'interface Login { password: string; apiKey?: string }\n[password: <string> | default = ""]\nsecret: ""'],
    [
      'keys that merely start with a keyword',
      'secretName: my-app-credentials-2024\npassword_hash: $2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW',
    ],
    ['paths', 'pwd: /home/alice/src'],
    [
      'bearer templates and prose',
      'Authorization: Bearer $TOKEN\nBearer ${DOCO_TOKEN}\nBearer <token>\nBearer tokens are opaque strings\nBearer authentication_header_value_here',
    ],
    [
      'hashes and ids',
      'sha256 56fd15071c52216d03f986a327725b3a02b16d99f702f4287f93dd1d7396945b commit 3d8fa69a9f87cdc0310a242b3c56e732cec5101d uuid b26008ce-4bf9-42a8-8f1e-203194a70a76 0xeee5132b5117a9a3ab7b972b6f6cc0ac3e55053e',
    ],
    [
      'assignment stand-ins',
      'DB_PASS=changeme\nDB_PASS=${DB_PASS}\nDB_PASS=\nSMTP_PASS=<password>\nDB_PASS=$(cat /run/secrets/db)\nBOT_TOKEN=your-bot-token-here',
    ],
    [
      'keys that are not passes',
      'bypass = Zq81xLw0Pk3mR7\ncompass: Zq81xLw0Pk3mR7\npassport: Zq81xLw0Pk3mR7\nDB_PASS_FILE=/run/secrets/db_pass',
    ],
    [
      'tokens and keys that are not secrets',
      'next_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA\nnextPageToken: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA\npage_token=Zq81xLw0Pk3mR7q\npublic_key: XTcEaiQrWdg667ycdeh6TJoMSJjE+pfncETLsXzHNO9c\npub_key = "A7f3Kq9Zx1Lm0Pw8Rt6Yb2Nc"\nprimary_key: user_id\nRECAPTCHA_SITE_KEY=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI\nENV GPG_KEY=A035C8C19219BA821ECEA86B64E628F8D684696D\ncache_key: user:1234:profile',
    ],
    [
      'git commit SHAs',
      'commit 3f6e287a9c1d0b5e4f7a8b2c6d9e0f1a2b3c4d5e\nGITHUB_SHA=3f6e287a9c1d0b5e4f7a8b2c6d9e0f1a2b3c4d5e\nhead_sha: 3f6e287a9c1d0b5e4f7a8b2c6d9e0f1a2b3c4d5e',
    ],
    [
      'GitHub token stand-ins',
      'GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}\nGH_TOKEN=0123456789abcdef0123456789abcdef01234567\nAuthorization: token OAUTH-TOKEN',
    ],
    [
      'Discord stand-ins',
      'DISCORD_TOKEN=your-discord-bot-token\nDISCORD_TOKEN=MTAxxxxxxxxxxxxxxxxxxxxx.Gxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ndiscord: a.b.c, Zm9vYmFyYmF6cXV4cXV1eGZvb2Jh.AbCdEf.c2lnbmF0dXJlLW5vdC1hLXRva2VuLWF0LWFsbA',
    ],
    [
      'Azure stand-ins',
      'AccountName=devstoreaccount1;AccountKey=<your key>;\nAccountKey=...\nAccountKey=${AZURE_STORAGE_KEY}\nAccountKey=[key]',
    ],
    [
      'Twilio ids without a secret',
      `API key ${'SK'}2a5b8c1d4e7f0a3b6c9d2e5f8a1b4c7d0e and account ${'AC'}9f8e7d6c5b4a39281706f5e4d3c2b1a0f9 are ids, not secrets`,
    ],
    [
      'command-line flags that are not passwords',
      'mysql -u root -p mydb\nmysql -p\nmysql -h db -P 3306 -u app -p\nmysql -P3306\npsql -p5432 -h db\nmkdir -p /tmp/build\nssh -p 2222 host\ndocker run -p 8080:80 mysql:8\nmysql -p$MYSQL_ROOT_PASSWORD\nmysql -p"$MYSQL_PWD"\nmysql -p${DB_PASSWORD}\nmysql -ppassword\nmysql -proot\nmysql -p<password>\nmysql -p****\nmysqldump -u root -p --databases shop > /backup/shop.sql',
    ],
  ];
  it.each(negatives)('%s', (_what, text) => {
    expect(findSecrets(text)).toEqual([]);
  });
});

describe('fields and redaction', () => {
  it('walks a body under dotted paths, keys included, and judges a JSON field by its key', () => {
    const found = findSecretsInFields({
      title: 'Deploy notes',
      prose: `line one\nuse ${c.stripe_secret}`,
      body: {
        config: { password: c.password, user: 'deploy' },
        steps: ['build', `push with ${c.npm}`],
        [c.github_pat]: true,
        'odd key': { db_password: 'changeme' },
      },
    });
    expect(found).toEqual([
      { field: 'prose', kind: 'stripe_live_key', line: 2, column: 5 },
      { field: 'body.config.password', kind: 'password_assignment' },
      { field: 'body.steps[1]', kind: 'npm_token', line: 1, column: 11 },
      { field: 'body["[redacted github_token]"] (key)', kind: 'github_token' },
    ]);
  });

  it('a finding never carries the value', () => {
    const found = findSecretsInFields({
      prose: `${c.github_pat} ${c.anthropic} DB_PASSWORD=${c.password}`,
      body: { password: c.password, [c.github_pat]: { nested: c.anthropic } },
    });
    expect(found.length).toBe(6);
    const json = JSON.stringify(found);
    for (const secret of [c.github_pat, c.anthropic, c.password]) {
      expect(json).not.toContain(secret);
      expect(json).not.toContain(secret.slice(-8));
    }
  });

  it('redacts each secret by kind and keeps the rest of the text', () => {
    const { text, kinds } = redactSecrets(`ship it with ${c.github_pat} and postgres://app:Zq81xLw0Pk3m@db/app`);
    expect(text).toBe('ship it with [redacted github_token] and postgres://app:[redacted url_password]@db/app');
    expect(kinds).toEqual(['github_token', 'url_password']);
    expect(redactSecrets('nothing here at all')).toEqual({ text: 'nothing here at all', kinds: [] });
  });
});
