// Crash suite: the embedded Postgres a killed process leaves running. Its postmaster
// runs in a process group of its own, so it outlives a kill -9 of `doco serve`; the next serve
// adopts it and stops it when that serve shuts down cleanly. A command run beside a live serve
// never takes the cluster from it; one run when the owner is gone adopts it and stops it; an
// owner stopping while another Doco process still uses it leaves it to that one.
import { afterAll, describe, expect, it } from 'vitest';
import { alive, cleanUp, DocoHome, DocoProcess, DocoServer, postmasterPid, restClient, writeToken } from '../helpers/doco-process.js';

afterAll(cleanUp, 60_000);

describe('an embedded Postgres left running by a kill -9', () => {
  it("is adopted by the next doco serve, kept while a CLI command comes and goes, and stopped by that serve's clean shutdown", async () => {
    const home = await DocoHome.make();
    const first = await DocoServer.start(home);
    const rest = restClient(() => first.url, await writeToken(home));
    expect(
      (
        await rest('POST', '/capture', {
          collection: 'constitution',
          node_type: 'rule',
          title: 'Kept across the kill',
          prose: 'Written before doco serve is killed.',
        })
      ).status,
    ).toBe(201);
    const pm = postmasterPid(home.dir)!;
    expect(pm).toBeDefined();

    expect((await first.kill9()).signal).toBe('SIGKILL');
    expect(alive(pm), 'the postmaster outlives the kill').toBe(true);

    const second = await DocoServer.start(home, { port: first.port });
    expect(second.log).toMatch(/adopted the embedded Postgres/);
    expect(postmasterPid(home.dir), 'the same postmaster, adopted, not a new one').toBe(pm);

    // A command attaching beside the serve that owns it leaves it running.
    const verify = await home.run(['verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ok: \d+ record versions/);
    expect(alive(pm)).toBe(true);
    const rest2 = restClient(() => second.url, await writeToken(home));
    expect((await rest2('GET', '/search?q=kept%20across%20the%20kill')).status).toBe(200);

    expect((await second.stop()).code).toBe(0);
    expect(second.log).toContain('stopped cleanly');
    expect(alive(pm), 'the serve that adopted it stopped it').toBe(false);
    expect(postmasterPid(home.dir)).toBeUndefined();
  }, 120_000);

  it('is adopted and stopped by a CLI command when no serve is left to own it', async () => {
    const home = await DocoHome.make();
    const server = await DocoServer.start(home);
    const pm = postmasterPid(home.dir)!;
    expect((await server.kill9()).signal).toBe('SIGKILL');
    expect(alive(pm)).toBe(true);

    // As if nothing were up: the command uses the cluster for its own duration, then stops it.
    const verify = await home.run(['verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(alive(pm), 'the command that adopted it stopped it').toBe(false);
  }, 120_000);

  it('is left running by an owner that stops while another Doco process still uses it; the last one stops it', async () => {
    const home = await DocoHome.make();
    const owner = await DocoServer.start(home);
    const pm = postmasterPid(home.dir)!;
    // `doco psql` attaches beside the owner and stays until its input ends.
    const psql = new DocoProcess(['psql', '-At'], home.env(), { input: true });
    psql.write("select 'attached';\n");
    await psql.waitForLog(/^attached$/m);

    expect((await owner.stop()).code).toBe(0);
    expect(owner.log).toMatch(/embedded Postgres left running: other Doco processes use it/);
    expect(alive(pm), 'still used by doco psql').toBe(true);
    psql.write("select 'still ' || count(*) from doco.workspaces;\n");
    await psql.waitForLog(/^still \d+$/m);

    psql.endInput();
    expect((await psql.exited).code).toBe(0);
    expect(alive(pm), 'the last Doco process to leave stopped it').toBe(false);
  }, 120_000);
});
