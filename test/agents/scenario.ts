// The one scenario every agent runs, as vitest tests: a world on loopback, `doco hooks install`,
// the agent headless on one prompt against the fake model (scripted: call doco_capture, write a
// file, for Claude also commit), then one test per claim. Each agent's file gives only what
// differs: its command line, environment and tool names.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from './fake-model.js';
import { AGENT_CLIS, cliPath, type AgentName } from './install-clis.js';
import { installHooks, type Installed } from './install-hooks.js';
import { describeRun, runAgent, type AgentRun } from './run-agent.js';
import { DECISION_TITLE, namespaceProblem, PROMPT, RULE_TITLE, World, type AgentRecord } from './world.js';

export const capturedTitle = (agent: AgentName) => `Refunds go back to the paying card (${agent})`;

export const captureInput = (agent: AgentName) => ({
  collection: 'payments',
  node_type: 'decision',
  title: capturedTitle(agent),
  prose: 'A refund is paid back to the card that paid, never as store credit.',
});

export const PAYMENTS_FILE = 'src/payments.ts';
export const PAYMENTS_CODE = 'export function charge(cents: number): number {\n  return cents;\n}\n';

export interface AgentSetup {
  script: Script;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** run after install, before the agent (Codex: trust its hooks) */
  prepare?: () => Promise<void>;
}

export interface AgentRunDetails {
  world: World;
  run: AgentRun;
  installed: Installed;
}

const skipReason = namespaceProblem();
if (skipReason) console.warn(`agents: SKIPPED, no agent runs: ${skipReason}`);

/** Defines the suite for one agent; `setup` builds its script and command line once the world is up. */
export function describeAgent(
  agent: AgentName,
  setup: (world: World, bin: string) => Promise<AgentSetup> | AgentSetup,
  extra?: (get: () => AgentRunDetails) => void,
): void {
  const cli = AGENT_CLIS.find((c) => c.agent === agent)!;
  describe.skipIf(skipReason !== undefined)(`${cli.pkg}@${cli.version} in a loopback-only network namespace`, () => {
    let world: World;
    let run: AgentRun;
    let installed: Installed;

    beforeAll(async () => {
      const bin = cliPath(cli);
      if (!existsSync(bin))
        throw new Error(`${cli.pkg}@${cli.version} is not installed at ${bin}: run \`npm run test:agents\` (it installs the CLIs first)`);
      world = await World.start();
      installed = await installHooks(world, agent);
      const s = await setup(world, bin);
      world.model.script = s.script;
      await s.prepare?.();
      run = await runAgent(bin, s.args, { cwd: world.checkout, env: world.agentEnv({ ...installed.env, ...s.env }), timeoutMs: 150_000 });
    }, 240_000);

    afterAll(async () => {
      if (world) {
        const records = await world.records(capturedTitle(agent)).catch(() => [] as AgentRecord[]);
        // What the agent did, for the suite's log (and the report written from it).
        console.log(
          `agents: ${agent} ${JSON.stringify({
            exit: run?.code,
            seconds: run ? Math.round(run.ms / 100) / 10 : undefined,
            hooks: world.proxy.hookEvents(agent),
            mcp: world.proxy.mcpMethods(),
            model_requests: world.model.requests.length,
            main_requests: world.model.mainRequests().length,
            model_routes: [...new Set(world.model.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`))],
            refused_proxy_connections: world.refuser.attempts,
            captured: records.map((r) => `${r.lifecycle} via ${r.source}${r.actor ? ` by ${r.actor}` : ''}`),
          })}`,
        );
        // DOCO_AGENTS_DUMP=DIR keeps every model request, proxied Doco call and the agent's output.
        if (process.env.DOCO_AGENTS_DUMP) {
          mkdirSync(process.env.DOCO_AGENTS_DUMP, { recursive: true });
          writeFileSync(
            path.join(process.env.DOCO_AGENTS_DUMP, `${agent}.json`),
            JSON.stringify({ run, installed, model: world.model.requests, doco: world.proxy.calls }, null, 2),
          );
        }
        await world.stop();
      }
    }, 60_000);

    const mainBodies = () => world.model.mainRequests().map((r) => r.raw);

    it('runs headless to its end against the fake model', () => {
      expect(run.timedOut, describeRun(run)).toBe(false);
      expect(run.code, describeRun(run)).toBe(0);
      expect(world.model.mainRequests().length, describeRun(run)).toBeGreaterThan(world.model.script.steps.length);
    });

    it("fires Doco's session-start, prompt and edit hooks", () => {
      const events = world.proxy.hookEvents(agent);
      expect(events, describeRun(run)).toEqual(expect.arrayContaining(['session-start', 'prompt', 'edit']));
      for (const call of world.proxy.calls.filter((c) => c.url.startsWith(`/api/v1/hooks/${agent}/`)))
        expect(call.status, call.answer).toBe(200);
    });

    it('puts the standing orders (the constitution rule) in the model request', () => {
      const first = mainBodies()[0] ?? '';
      expect(first, describeRun(run)).toContain('Doco standing orders');
      expect(first).toContain(RULE_TITLE);
    });

    it('puts a brief about the prompt in the model request', () => {
      // The first main request precedes every tool call, so a brief in it comes from the prompt
      // hook; the seeded decision is in the standing orders too, so look for the brief's own lines.
      const first = mainBodies()[0] ?? '';
      expect(first, describeRun(run)).toContain('[🔮 Doco] briefed:');
      expect(first).toContain('Already decided');
      expect(first).toMatch(/because: matched [^"\\]*'payments'/);
    });

    it('lands an MCP doco_capture as a record', async () => {
      expect(world.proxy.mcpMethods(), describeRun(run)).toContain('tools/call:doco_capture');
      const records = await world.records(capturedTitle(agent));
      expect(records, describeRun(run)).toHaveLength(1);
      expect(records[0]!.source).toBe('mcp');
      expect(records[0]!.collection).toBe('payments');
      // The MCP entry writes as agent:<agent>@<checkout>: its records wait for a person's review.
      expect(records[0]!.lifecycle).toBe('queued');
      expect(records[0]!.actor).toMatch(new RegExp(`^agent:${agent}@`));
    });

    it('briefs the edit it makes, and the model sees that brief', () => {
      const edits = world.proxy.calls.filter((c) => c.url === `/api/v1/hooks/${agent}/edit`);
      expect(edits.length, describeRun(run)).toBeGreaterThan(0);
      expect(edits.some((c) => c.body.includes('payments.ts'))).toBe(true);
      // After the edit the conversation holds two briefs' receipts: the prompt's and the edit's.
      const last = mainBodies().at(-1) ?? '';
      expect(last.split('[🔮 Doco] briefed:').length - 1, describeRun(run)).toBeGreaterThanOrEqual(2);
    });

    extra?.(() => ({ world, run, installed }));
  });
}
