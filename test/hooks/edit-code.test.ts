// The code an edit hook event carries, as the brief's code terms (docs/brief.md, "Code terms"):
// each agent's and tool's fields read as removed and added lines; the distinctive identifiers
// only, at most MAX_CODE_TERMS of at most MAX_CODE_TERM_CHARS, the most used first among equals
// and one of each numbered family, never a keyword, a credential or a generated-looking string;
// in a prose file only names of several words.
import { describe, expect, it } from 'vitest';
import { MAX_CODE_TERM_CHARS, MAX_CODE_TERMS } from '../../src/brief/types.js';
import { parseHookInput } from '../../src/hooks/agents.js';
import { codeTerms, editLines } from '../../src/hooks/edit-code.js';
import { fakeCredentials, seeded } from '../helpers/fake-secrets.js';

const edit = (agent: 'claude-code' | 'codex' | 'gemini', tool_name: string, tool_input: object) =>
  parseHookInput(agent, 'edit', { session_id: 's', cwd: '/repo', tool_name, tool_input });

describe('the code of an edit event', () => {
  it("reads Claude Code's Edit, MultiEdit and Write, Gemini's replace, and Codex's apply_patch", () => {
    expect(
      edit('claude-code', 'Edit', {
        file_path: '/repo/consensus/wal.go',
        old_string: 'func (wal *BaseWAL) Write(msg WALMessage) error {',
        new_string: 'func (wal *BaseWAL) WriteSync(msg WALMessage) error {',
      }).codeTerms,
    ).toEqual(expect.arrayContaining(['WriteSync', 'WALMessage', 'BaseWAL']));
    expect(
      edit('claude-code', 'MultiEdit', {
        file_path: '/repo/config/config.go',
        edits: [
          { old_string: 'TimeoutCommit: 1000,', new_string: 'TimeoutCommit: 500,' },
          { old_string: '', new_string: 'SkipTimeoutCommit: true,' },
        ],
      }).codeTerms,
    ).toEqual(['TimeoutCommit', 'SkipTimeoutCommit']);
    expect(
      edit('claude-code', 'Write', { file_path: '/repo/a.toml', content: '[mempool]\nmax_txs_bytes = 1073741824\n' }).codeTerms,
    ).toEqual(['max_txs_bytes', 'mempool']);
    expect(
      edit('gemini', 'replace', {
        file_path: '/repo/pkg/limits.go',
        old_string: 'MaxSeriesPerQuery int',
        new_string: 'MaxFetchedSeriesPerQuery int',
      }).codeTerms,
    ).toEqual(['MaxSeriesPerQuery', 'MaxFetchedSeriesPerQuery']);
    const patch = [
      '*** Begin Patch',
      '*** Update File: light/verifier.go',
      '@@ func VerifyNonAdjacent(',
      '+\tif err := ValidateTrustLevel(trustLevel); err != nil {',
      '-\treturn nil',
      '*** End Patch',
    ].join('\n');
    expect(edit('codex', 'apply_patch', { command: patch }).codeTerms).toEqual(['VerifyNonAdjacent', 'trustLevel', 'ValidateTrustLevel']);
  });

  it('never a keyword or plain word, never a credential or a generated-looking string', () => {
    const creds = fakeCredentials();
    const random = seeded(7).base62(24);
    const terms = codeTerms('src/client.ts', {
      added: [
        `const githubToken = '${creds.github_pat}';`,
        `export const sessionSalt = "${random}";`,
        'if (err != nil) { return fmt.Errorf("failed: %w", err) }',
        'for _, tx := range txs { mem.recheckTxs() }',
      ],
      removed: [],
      contexts: [],
    });
    expect(terms).toContain('githubToken');
    expect(terms).toContain('sessionSalt');
    expect(terms).toContain('recheckTxs');
    for (const t of terms) {
      expect(creds.github_pat).not.toContain(t);
      expect(t).not.toBe(random);
    }
    for (const plain of ['if', 'err', 'nil', 'return', 'fmt', 'Errorf', 'for', 'range', 'failed']) expect(terms).not.toContain(plain);
  });

  it('bounded: at most MAX_CODE_TERMS names of at most MAX_CODE_TERM_CHARS, the code read up to a cap', () => {
    const word = (i: number) => `${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
    const many = Array.from({ length: 60 }, (_, i) => `const value${word(i)}Name = compute${word(i)}Value(input${word(i)}Value);`);
    const long = `const ${'veryLong'.repeat(20)}Name = 1;`;
    const terms = codeTerms('src/many.ts', { added: [...many, long], removed: [], contexts: [] });
    expect(terms).toHaveLength(MAX_CODE_TERMS);
    for (const t of terms) expect(t.length).toBeLessThanOrEqual(MAX_CODE_TERM_CHARS);
    // A Write of a huge generated file: only its first 64,000 characters are read.
    const huge = `${'x'.repeat(70_000)}\nconst lateName = 1;`;
    expect(editLines({ content: huge }).added.join('\n')).not.toContain('lateName');
  });

  it('by weight, then by use: a name the code uses twice outranks names used once; one name of each numbered family', () => {
    const lines = [
      'if env.EventBus.NumClients() >= env.Config.MaxSubscriptionClients {',
      '\treturn fmt.Errorf("limit %d reached", env.Config.MaxSubscriptionClients)',
      ...Array.from({ length: 40 }, (_, i) => `\tlimitValue${i} := computeLimitFor${i}(env)`),
    ];
    const terms = codeTerms('rpc/limits.go', { added: lines, removed: [], contexts: [] });
    expect(terms[0]).toBe('MaxSubscriptionClients');
    expect(terms.filter((t) => t.startsWith('limitValue'))).toEqual(['limitValue0']);
    expect(terms.filter((t) => t.startsWith('computeLimitFor'))).toEqual(['computeLimitFor0']);
  });

  it('in a prose file, only names of several words: a capitalised word starts every sentence', () => {
    const lines = { added: ['Raise `max_subscription_clients` when Subscribers connect; see WriteSync.'], removed: [], contexts: [] };
    expect(codeTerms('docs/core/subscription.md', lines)).toEqual(['max_subscription_clients', 'WriteSync']);
    expect(codeTerms('rpc/core/events.go', lines)).toContain('Subscribers');
  });
});
