/**
 * Where SSE events wait for a client that reconnects with `Last-Event-ID`,
 * so a stream that closed mid-call (or a dropped connection) loses nothing.
 *
 * @module
 */

/**
 * Keeps SSE events for resumption. Event ids must identify their stream.
 * Synchronous on purpose: the transport stores an event before it writes it,
 * so a reconnecting client never sees a gap.
 *
 * @example A store that keeps fewer events
 * ```ts
 * import { MemoryEventStore } from "@warden/mcp/http";
 * const store = new MemoryEventStore({ maxEventsPerStream: 100, maxStreams: 50 });
 * const id = store.store("stream-1", '{"jsonrpc":"2.0","method":"ping"}');
 * console.assert(store.replayAfter(id)?.events.length === 0);
 * ```
 */
export interface EventStore {
  /** Stores one event of `streamId` and returns its id. */
  store(streamId: string, data: string): string;
  /** The events of the same stream after `lastEventId`; undefined when the id is unknown. */
  replayAfter(lastEventId: string): {
    /** The stream the events belong to. */
    readonly streamId: string;
    /** The events after the one asked for, oldest first. */
    readonly events: readonly { readonly id: string; readonly data: string }[];
  } | undefined;
  /** Forgets a stream (its session ended). */
  forget(streamId: string): void;
}

/**
 * The default event store: bounded, in memory, per process.
 *
 * @example
 * ```ts
 * import { MemoryEventStore } from "@warden/mcp/http";
 * const store = new MemoryEventStore();
 * const first = store.store("s", "a");
 * store.store("s", "b");
 * console.assert(store.replayAfter(first)?.events[0]?.data === "b");
 * ```
 */
export class MemoryEventStore implements EventStore {
  readonly #streams = new Map<string, { next: number; events: { id: string; data: string }[] }>();
  readonly #maxEvents: number;
  readonly #maxStreams: number;

  /**
   * Creates an empty store.
   *
   * @param options Bounds.
   */
  constructor(options: {
    /**
     * Events kept per stream; older ones are dropped.
     * @default {1000}
     */
    maxEventsPerStream?: number;
    /**
     * Streams kept; the least recently written is dropped first.
     * @default {10000}
     */
    maxStreams?: number;
  } = {}) {
    this.#maxEvents = options.maxEventsPerStream ?? 1000;
    this.#maxStreams = options.maxStreams ?? 10_000;
    for (
      const [name, value] of [["maxEventsPerStream", this.#maxEvents], [
        "maxStreams",
        this.#maxStreams,
      ]] as const
    ) {
      if (!Number.isInteger(value) || value < 1) {
        throw new RangeError(`Invalid event store: ${name} must be a positive integer`);
      }
    }
  }

  store(streamId: string, data: string): string {
    let stream = this.#streams.get(streamId);
    if (stream === undefined) {
      stream = { next: 0, events: [] };
    } else {
      this.#streams.delete(streamId); // re-inserted below: most recent last
    }
    this.#streams.set(streamId, stream);
    if (this.#streams.size > this.#maxStreams) {
      const oldest = this.#streams.keys().next().value;
      if (oldest !== undefined) this.#streams.delete(oldest);
    }
    const id = `${streamId}/${stream.next++}`;
    stream.events.push({ id, data });
    if (stream.events.length > this.#maxEvents) stream.events.shift();
    return id;
  }

  replayAfter(lastEventId: string): ReturnType<EventStore["replayAfter"]> {
    const slash = lastEventId.lastIndexOf("/");
    if (slash <= 0) return undefined;
    const streamId = lastEventId.slice(0, slash);
    const seq = Number(lastEventId.slice(slash + 1));
    const stream = this.#streams.get(streamId);
    if (stream === undefined || !Number.isSafeInteger(seq) || seq < 0 || seq >= stream.next) {
      return undefined;
    }
    const events = stream.events.filter((event) => Number(event.id.slice(slash + 1)) > seq);
    return { streamId, events };
  }

  forget(streamId: string): void {
    this.#streams.delete(streamId);
  }
}

/** Options of {@linkcode MemoryEventStore}. */
export type MemoryEventStoreOptions = NonNullable<
  ConstructorParameters<typeof MemoryEventStore>[0]
>;

/** Events of one stream after a given event, as a store returns them. */
export type ReplayedEvents = NonNullable<ReturnType<EventStore["replayAfter"]>>;
