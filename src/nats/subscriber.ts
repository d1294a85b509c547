// The docs-pack subscriber: connects to NATS (retrying with backoff until it can, without holding
// up the worker), follows the register / unregister / gateway_online subjects and hands each
// message, one at a time and in arrival order, to handleNatsMessage. The client reconnects by
// itself and restores the subscriptions; a connection the client gives up on is made afresh.
import { connect, DebugEvents, Events, type NatsConnection, type Status } from 'nats';
import { backoffSchedule } from './backoff.js';
import type { NatsConfig } from '../config/nats.js';
import { connectionOptions } from './connect-options.js';
import { handleNatsMessage, type NatsHandlerDeps } from './handle.js';
import type { NatsMessageKind } from './messages.js';

/** Messages received but not yet handled; past this, new ones are dropped with a warning. */
export const MAX_PENDING_MESSAGES = 1_000;

export interface NatsSubscriberDeps extends NatsHandlerDeps {
  config: NatsConfig;
}

export interface NatsSubscriberState {
  /** Connected with the subscriptions in place (the server has acknowledged them). */
  subscribed: boolean;
  /** Connections made, the first included: each one re-established the subscriptions. */
  connections: number;
  /** Messages handed to the handler so far. */
  handled: number;
}

export interface NatsSubscriber {
  /** Resolves once the first connection is made and subscribed. */
  subscribed: Promise<void>;
  state(): NatsSubscriberState;
  /** Stops following the subjects, lets the message being handled finish, closes the connection. */
  stop(): Promise<void>;
}

export function startNatsSubscriber(deps: NatsSubscriberDeps): NatsSubscriber {
  const { config, log } = deps;
  const schedule = backoffSchedule(config.backoff);
  const state: NatsSubscriberState = { subscribed: false, connections: 0, handled: 0 };
  const where = config.servers.join(', ');
  let stopping = false;
  let current: NatsConnection | undefined;
  let wake: (() => void) | undefined;
  let markSubscribed!: () => void;
  const subscribed = new Promise<void>((resolve) => (markSubscribed = resolve));

  // One message at a time, in order: an unregister right after a register must see it.
  let chain: Promise<unknown> = Promise.resolve();
  let pending = 0;
  const enqueue = (kind: NatsMessageKind, subject: string, data: Uint8Array) => {
    if (pending >= MAX_PENDING_MESSAGES) {
      log.warn(`NATS ${subject}: dropped a message: ${pending} are already waiting to be handled`);
      return;
    }
    pending++;
    chain = chain
      .then(() => handleNatsMessage(deps, kind, subject, data))
      .catch((err: Error) => log.error(`NATS ${subject}: ${err.message}`))
      .finally(() => {
        pending--;
        state.handled++;
      });
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const subscribeAll = (nc: NatsConnection) => {
    const subjects: [NatsMessageKind, string][] = [
      ['register', config.subjects.register],
      ['unregister', config.subjects.unregister],
      ['gatewayOnline', config.subjects.gatewayOnline],
    ];
    for (const [kind, subject] of subjects) {
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) log.error(`NATS ${subject}: the subscription failed: ${err.message}`);
          // The client may reuse its read buffer: keep a copy.
          else enqueue(kind, msg.subject, msg.data.slice());
        },
      });
    }
  };

  const watchStatus = async (status: AsyncIterable<Status>, nc: NatsConnection) => {
    for await (const s of status) {
      if (s.type === Events.Disconnect) {
        state.subscribed = false;
        log.warn(`NATS: disconnected from ${String(s.data)}; reconnecting with backoff`);
      } else if (s.type === Events.Reconnect) {
        schedule.reset();
        // The subscriptions were re-sent on reconnecting; a round trip proves the server has them.
        await nc.flush().then(
          () => {
            state.connections++;
            state.subscribed = true;
            log.info(`NATS: reconnected to ${String(s.data)}; subscriptions restored`);
          },
          (err: Error) => log.warn(`NATS: reconnected, but the server did not answer: ${err.message}`),
        );
      } else if (s.type === Events.Error) log.warn(`NATS: ${String(s.data)}`);
      else if (s.type === DebugEvents.Reconnecting) log.debug(`NATS: trying ${String(s.data)}`);
    }
  };

  /** Connects (again and again, backing off) until stopped; returns once stopped. */
  const supervise = async () => {
    for (let failures = 0; !stopping;) {
      let nc: NatsConnection;
      try {
        nc = await connect(await connectionOptions(config, schedule));
      } catch (err) {
        const wait = schedule.afterFailure(failures++);
        log.warn(`NATS: cannot connect to ${where}: ${(err as Error).message}; trying again in ${wait} ms`);
        await sleep(wait);
        continue;
      }
      if (stopping) {
        await nc.close().catch(() => {});
        break;
      }
      failures = 0;
      schedule.reset();
      current = nc;
      // The client does not end its status iterator when the connection closes: it is stopped below.
      const status = nc.status() as AsyncIterable<Status> & { stop?: () => void };
      const watching = watchStatus(status, nc).catch((err: Error) => log.warn(`NATS: status watch ended: ${err.message}`));
      subscribeAll(nc);
      const closed = nc.closed();
      try {
        await nc.flush();
        state.connections++;
        state.subscribed = true;
        log.info(
          `NATS: connected to ${nc.getServer()}; following ${config.subjects.register}, ${config.subjects.unregister}, ${config.subjects.gatewayOnline}`,
        );
        markSubscribed();
      } catch (err) {
        log.warn(`NATS: connected to ${where}, but could not subscribe: ${(err as Error).message}`);
      }
      const ended = await closed;
      // Without stop() (another client version) the watch is left to end with the connection object.
      if (status.stop) {
        status.stop();
        await watching;
      }
      state.subscribed = false;
      current = undefined;
      if (stopping) break;
      log.warn(`NATS: the connection closed${ended instanceof Error ? ` (${ended.message})` : ''}; connecting afresh`);
    }
  };
  const supervising = supervise().catch((err: Error) => log.error(`NATS: the subscriber stopped: ${err.message}`));

  return {
    subscribed,
    state: () => ({ ...state }),
    async stop() {
      stopping = true;
      wake?.();
      await current?.close().catch(() => {});
      await supervising;
      await chain;
    },
  };
}
