// The command `doco hooks install` writes for a hook, run as the agents run it (`sh -c`): Node
// starts without NODE_EXTRA_CA_CERTS (parsing a system bundle costs every prompt ~40 ms of CPU),
// and the hook still trusts those certificates when its server speaks https. The https server
// here is a loopback one with a self-signed certificate kept in test/fixtures/tls (valid 2020 to
// 2120, for 127.0.0.1), standing for a team's server behind a private CA.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookCommandLine, type InstallOptions } from '../../src/hooks/install/common.js';
import { DOCO_BIN } from '../helpers/cli.js';

const TLS = path.resolve(import.meta.dirname, '../fixtures/tls');
const CERT = path.join(TLS, 'loopback.crt');

const options = (docoArgv: string[], docoCommand: string): InstallOptions => ({
  root: '/nowhere',
  url: 'http://127.0.0.1:1',
  token: 't',
  mcpToken: 'm',
  refused: new Set(),
  docoCommand,
  docoArgv,
  http: false,
});

/** Runs a command line as an agent does, with exactly `env` (and PATH). */
function sh(line: string, env: NodeJS.ProcessEnv, stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('the installed hook command', () => {
  // A stand-in for doco that prints the two variables as it saw them.
  const printEnv = `node -e 'console.log(JSON.stringify([process.env.NODE_EXTRA_CA_CERTS, process.env.DOCO_EXTRA_CA_CERTS]))' --`;

  it('starts Node without NODE_EXTRA_CA_CERTS and hands its file on as DOCO_EXTRA_CA_CERTS', async () => {
    const line = hookCommandLine(options(['node', '/x/bin/doco.js'], printEnv), 'claude-code', 'prompt');
    expect(line).toMatch(/ hook prompt --agent claude-code$/);
    const withBundle = await sh(line, { NODE_EXTRA_CA_CERTS: '/etc/ssl/some bundle.pem' });
    expect(JSON.parse(withBundle.stdout)).toEqual(['', '/etc/ssl/some bundle.pem']);
    const without = await sh(line, {});
    expect(JSON.parse(without.stdout)).toEqual(['', '']);
  });

  it('leaves npx its certificates: it may fetch Doco through the proxy they are for', async () => {
    const line = hookCommandLine(options(['npx', 'doco'], 'npx doco'), 'codex', 'edit');
    expect(line).toBe('npx doco hook edit --agent codex');
  });
});

describe('doco hook against an https server whose certificate NODE_EXTRA_CA_CERTS names', () => {
  let repo: string;
  let server: https.Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'doco-hook-ca-'));
    execFileSync('git', ['init', '-q'], { cwd: repo });
    server = https.createServer({ cert: readFileSync(CERT), key: readFileSync(path.join(TLS, 'loopback.key')) }, (req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"over https"}}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(repo, { recursive: true, force: true });
  });

  const line = hookCommandLine(options([process.execPath, DOCO_BIN], `'${process.execPath}' '${DOCO_BIN}'`), 'claude-code', 'prompt');
  const input = () => JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'refunds' });
  const env = (extra: NodeJS.ProcessEnv) => ({ DOCO_HOME: path.join(repo, '.doco'), DOCO_URL: url, DOCO_TOKEN: 'doco_test', ...extra });

  it('trusts the certificate, the variable handed on', async () => {
    seen.length = 0;
    const r = await sh(line, env({ NODE_EXTRA_CA_CERTS: CERT }), input());
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toBe('over https');
    expect(seen).toEqual(['/api/v1/hooks/claude-code/prompt']);
  });

  it('names the file when the variable names one that cannot be read: exit 0, nothing printed, nothing sent', async () => {
    seen.length = 0;
    const r = await sh(line, env({ NODE_EXTRA_CA_CERTS: path.join(TLS, 'missing.crt') }), input());
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`names ${path.join(TLS, 'missing.crt')}, which cannot be read: ENOENT`);
    expect(seen).toEqual([]);
  });

  it('refuses it without the variable: exit 0, nothing printed, a note', async () => {
    seen.length = 0;
    const r = await sh(line, env({}), input());
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/SELF_SIGNED_CERT/);
    expect(seen).toEqual([]);
  });
});
