// Where `doco verify` keeps the chain's heads between checks: a file in DOCO_HOME, outside the
// database, so whoever can rewrite the database's history (and recompute its hashes) cannot
// rewrite this too (src/graph/chain-checks.ts, docs/security.md "Tamper-evidence").
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';

/** The chain as it stood at `at` (a UTC timestamp to the microsecond): its versions counted and its heads' digest. */
export interface ChainAnchor {
  at: string;
  versions: number;
  digest: string;
}

const AnchorSchema = v.object({
  at: v.pipe(v.string(), v.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)),
  versions: v.pipe(v.number(), v.integer(), v.minValue(0)),
  digest: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
});
/**
 * One anchor per database, by its cluster's system identifier and its name: a home whose
 * DATABASE_URL changes (the embedded Postgres, then a server's) checks each database against its
 * own heads, never one against another's.
 */
const AnchorsSchema = v.record(v.pipe(v.string(), v.regex(/^\d+:.+$/)), AnchorSchema);
type Anchors = v.InferOutput<typeof AnchorsSchema>;

export const chainAnchorFile = (home: string) => path.join(home, 'chain-anchor.json');

/** The anchor kept for `database`; undefined when none was kept yet. A file that is not Doco's is an error naming it. */
export async function readChainAnchor(home: string, database: string): Promise<ChainAnchor | undefined> {
  return (await readAnchors(home))[database];
}

async function readAnchors(home: string): Promise<Anchors> {
  const file = chainAnchorFile(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const anchors = v.safeParse(AnchorsSchema, parsed);
  if (!anchors.success) throw new Error(`${file} is not an anchor doco verify wrote: move it aside to start a new one`);
  return anchors.output;
}

/** Replaces the anchor kept for `database` at once (a rename), readable by this user alone. */
export async function writeChainAnchor(home: string, database: string, anchor: ChainAnchor): Promise<void> {
  const anchors = { ...(await readAnchors(home)), [database]: anchor };
  await mkdir(home, { recursive: true });
  const file = chainAnchorFile(home);
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(anchors)}\n`, { mode: 0o600 });
  await rename(temp, file);
}
