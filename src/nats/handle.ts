// What one NATS message does to the docs packs (docs/docs-pack.md): a registration with the docs_pack
// capability registers the pack and queues its pull (the docs__pack_pull job fetches, compares
// the hash and ingests), an unregistration retires that code's docs, gateway_online re-pulls
// every registered pack. Shielded: whatever a message holds, this logs and returns, never throws.
import type { PackHosts } from '../config/pack-hosts.js';
import { isAppError } from '../errors.js';
import type { PackDeps } from '../ingest/packs/pull.js';
import { queueAllPackPulls, registerAndQueuePull, unregisterPack } from '../ingest/packs/queue.js';
import type { Log } from '../lib/log.js';
import { decodeNatsMessage, type NatsMessageKind } from './messages.js';

export interface NatsHandlerDeps extends PackDeps {
  log: Log;
  /** The workspace the packs belong to (DOCO_WORKSPACE): NATS messages carry none. */
  workspaceId: string;
  /** DOCO_PACK_HOSTS: a registration naming an address the host policy refuses outright is dropped. */
  packHosts: PackHosts;
}

export type HandleOutcome = 'registered' | 'ignored' | 'unregistered' | 'repulled' | 'malformed' | 'refused' | 'failed';

export async function handleNatsMessage(
  deps: NatsHandlerDeps,
  kind: NatsMessageKind,
  subject: string,
  data: Uint8Array,
): Promise<HandleOutcome> {
  const decoded = decodeNatsMessage(kind, data);
  if (!decoded.ok) {
    deps.log.warn(`NATS ${subject}: dropped a malformed message: ${decoded.problem}`);
    return 'malformed';
  }
  const event = decoded.event;
  try {
    switch (event.kind) {
      case 'not_a_docs_pack':
        deps.log.debug(`NATS ${subject}: a service without the docs_pack capability registered; nothing to do`);
        return 'ignored';
      case 'register': {
        const { jobId } = await registerAndQueuePull(deps.sql, deps.packHosts, deps.workspaceId, event.code, event.baseUrl, {
          overNats: true,
        });
        deps.log.info(`NATS ${subject}: docs pack ${event.code} registered at ${event.baseUrl}; pull queued (job ${jobId})`);
        return 'registered';
      }
      case 'unregister': {
        const { retired } = await unregisterPack(deps, deps.workspaceId, event.code, { overNats: true });
        deps.log.info(`NATS ${subject}: docs pack ${event.code} unregistered; ${retired} section(s) retired`);
        return 'unregistered';
      }
      case 'gateway_online': {
        const packs = await queueAllPackPulls(deps.sql);
        deps.log.info(`NATS ${subject}: re-pulling ${packs} registered docs pack(s)`);
        return 'repulled';
      }
    }
  } catch (err) {
    // A registration the host policy refuses outright (a loopback, private or metadata address not
    // listed), one moving a registered code to another host, or an unregistration of a person's pack.
    if (isAppError(err) && (err.code === 'validation_failed' || err.code === 'forbidden')) {
      deps.log.warn(`NATS ${subject}: refused ${event.kind === 'unregister' ? 'an unregistration' : 'a registration'}: ${err.message}`);
      return 'refused';
    }
    // Fire-and-forget: the sender gets no answer, so the log is where a failure shows.
    deps.log.error(`NATS ${subject}: could not act on the message: ${(err as Error).message}`);
    return 'failed';
  }
}
