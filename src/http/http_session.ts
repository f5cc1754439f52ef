/**
 * One legacy MCP session over Streamable HTTP (sessionless requests have
 * none: see `exchange.ts`): where each outgoing message goes
 * (the POST stream of the request it belongs to, or the session's standalone
 * GET stream), and how streams are primed, stored and resumed.
 *
 * @module
 */

import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { HttpProtocolSession } from "./options.ts";
import type { EventStore } from "./event_store.ts";
import { eventData, SseWriter } from "./sse.ts";

/** Stream behaviour shared by every session of one endpoint. */
export interface StreamSettings {
  /** Where events wait for a reconnecting client. */
  readonly store: EventStore;
  /** The `retry:` a priming event suggests, in ms. */
  readonly retryMs: number;
  /** Keep-alive interval of standalone streams, in ms (0: none). */
  readonly keepAliveMs: number;
  /** Diagnostics. */
  readonly log: (message: string) => void;
  /** The clock, in ms. */
  readonly now: () => number;
}

/** How many unrelated messages wait for a GET stream before the oldest are dropped. */
const MAX_QUEUED = 1000;

/**
 * Whether a session's streams are resumable: it negotiated 2025-11-25, whose
 * clients expect priming events (an event id with empty data); older
 * clients may not.
 */
function resumable(owner: HttpSession): boolean {
  return (owner.session.protocolVersion ?? "") >= "2025-11-25";
}

/**
 * The response stream of one POST that carried requests. It starts undecided:
 * if the reply comes first it is sent as plain JSON; the first message sent
 * for the request before that (a log, progress, a sampling request) or a
 * `closeStream()` turns it into an SSE stream.
 */
export class PostRoute {
  readonly ids: readonly JsonRpcId[];
  /**
   * Called once when the response must become a stream, if it was set
   * before; `streamWanted` tells a caller that sets it late.
   */
  onStreamRequested: (() => void) | undefined;
  #streamWanted = false;
  #streamId: string | undefined;
  #state: "waiting" | "streaming" | "detached" | "done" = "waiting";
  #writer: SseWriter | undefined;
  readonly #early: string[] = [];
  readonly #owner: HttpSession;

  constructor(owner: HttpSession, ids: readonly JsonRpcId[]) {
    this.#owner = owner;
    this.ids = ids;
  }

  /** The id its events are stored under; made when first needed (most replies are plain JSON). */
  get streamId(): string {
    this.#streamId ??= this.#owner.newStreamId();
    return this.#streamId;
  }

  /** Whether `streamId` is this route's (a route that never streamed has none). */
  hasStream(streamId: string): boolean {
    return this.#streamId === streamId;
  }

  /** Whether the response must become a stream (something was sent, or it closes early). */
  get streamWanted(): boolean {
    return this.#streamWanted;
  }

  #requestStream(): void {
    if (this.#streamWanted) return;
    this.#streamWanted = true;
    this.onStreamRequested?.();
  }

  /** Whether the request is still open (its reply not yet sent). */
  get open(): boolean {
    return this.#state !== "done";
  }

  /** A message that belongs to this request. */
  push(data: string): void {
    if (this.#state === "waiting") {
      this.#early.push(data);
      this.#requestStream();
      return;
    }
    this.#emit(data);
  }

  /** Turns the response into an SSE stream: priming event, then what waited. */
  startStream(): SseWriter {
    const writer = this.#attachWriter();
    if (this.#state === "waiting") this.#state = "streaming";
    for (const data of this.#early.splice(0)) this.#emit(data);
    if (this.#state === "detached") this.#closeWriter();
    return writer;
  }

  /** The request's handler asked to end the stream now (the client will resume). */
  closeEarly(): void {
    // Only where resuming is possible: otherwise the result would be stored
    // where nobody can fetch it, so the stream stays open instead.
    if (!resumable(this.#owner)) return;
    if (this.#state === "done" || this.#state === "detached") return;
    const wasWaiting = this.#state === "waiting";
    this.#state = "detached";
    if (wasWaiting) {
      this.#requestStream();
    } else {
      this.#closeWriter();
    }
  }

  /** Sends the final reply (or nothing, for a cancelled request) and ends the stream. */
  finish(data: string | undefined): void {
    if (data !== undefined) this.#emit(data);
    this.#state = "done";
    this.#closeWriter();
    this.#owner.endRoute(this);
  }

  /** A client resumed this stream: replay happened; now deliver what follows here. */
  resumeOn(writer: SseWriter): void {
    if (this.#state === "done") {
      writer.close();
      return;
    }
    this.#writer?.close();
    this.#writer = writer;
    this.#state = "streaming";
  }

  #attachWriter(): SseWriter {
    const writer = new SseWriter(() => {
      if (this.#writer === writer) this.#writer = undefined;
    });
    this.#writer = writer;
    if (resumable(this.#owner)) {
      writer.send({
        id: this.#owner.settings.store.store(this.streamId, ""),
        data: "",
        retryMs: this.#owner.settings.retryMs,
      });
    }
    return writer;
  }

  #emit(data: string): void {
    const id = this.#owner.settings.store.store(this.streamId, data);
    this.#owner.remember(this.streamId);
    this.#writer?.send({ id, data });
  }

  #closeWriter(): void {
    this.#writer?.close();
    this.#writer = undefined;
  }
}

/** An MCP session reached over HTTP. */
export class HttpSession {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The protocol session. */
  readonly session: HttpProtocolSession;
  /** Stream settings of the endpoint. */
  readonly settings: StreamSettings;
  /** When the client was last heard from (ms). */
  lastActive: number;
  readonly #routes = new Map<JsonRpcId, PostRoute>();
  readonly #standaloneId: string;
  #standalone: SseWriter | undefined;
  readonly #queued: string[] = [];
  readonly #streams = new Set<string>();
  #nextStream = 0;
  #closed = false;

  /** The principal `authenticate()` returned when the session opened. */
  readonly authenticated: string | undefined;

  constructor(
    id: string,
    session: HttpProtocolSession,
    settings: StreamSettings,
    authenticated: string | undefined,
  ) {
    this.id = id;
    this.session = session;
    this.settings = settings;
    this.authenticated = authenticated;
    this.lastActive = settings.now();
    this.#standaloneId = `${id}.standalone`;
    session.attach((message, related) => this.#route(message, related));
    session.onCloseStream((requestId) => this.#routes.get(requestId)?.closeEarly());
  }

  /** Whether anything is open: requests in flight or streams. */
  get busy(): boolean {
    return this.session.inflight.size > 0 || this.#routes.size > 0 ||
      (this.#standalone !== undefined && !this.#standalone.closed);
  }

  /** A route for the requests of one POST. */
  openRoute(ids: readonly JsonRpcId[]): PostRoute {
    // An id already in flight keeps its own route: the dispatcher refuses the
    // duplicate, and that refusal must not take over the first call's stream.
    const fresh = ids.filter((id) => !this.#routes.has(id));
    const route = new PostRoute(this, fresh);
    for (const id of fresh) this.#routes.set(id, route);
    return route;
  }

  /** A fresh id for one of the session's streams, under the session's own prefix. */
  newStreamId(): string {
    return `${this.id}.${this.#nextStream++}.${crypto.randomUUID()}`;
  }

  /** Forgets a finished route. */
  endRoute(route: PostRoute): void {
    for (const id of route.ids) {
      if (this.#routes.get(id) === route) this.#routes.delete(id);
    }
    // A long call counts as activity: idle time starts when it ends.
    this.lastActive = this.settings.now();
  }

  /** Notes a stream whose events are stored, so closing the session forgets them. */
  remember(streamId: string): void {
    this.#streams.add(streamId);
  }

  /** Opens the standalone GET stream; undefined when one is already open. */
  openStandalone(): SseWriter | undefined {
    if (this.#standalone !== undefined && !this.#standalone.closed) return undefined;
    const writer = new SseWriter(() => {
      if (this.#standalone === writer) this.#standalone = undefined;
      this.lastActive = this.settings.now();
    }, this.settings.keepAliveMs);
    this.#standalone = writer;
    if (resumable(this)) {
      writer.send({
        id: this.settings.store.store(this.#standaloneId, ""),
        data: "",
        retryMs: this.settings.retryMs,
      });
    }
    for (const data of this.#queued.splice(0)) this.#sendStandalone(data);
    return writer;
  }

  /**
   * A GET with `Last-Event-ID`: replays what the client missed on that
   * stream and keeps delivering there. Undefined when the id is unknown or
   * belongs to another session.
   */
  resume(lastEventId: string): SseWriter | undefined {
    const replay = this.settings.store.replayAfter(lastEventId);
    const prefix = `${this.id}.`;
    if (replay === undefined || !replay.streamId.startsWith(prefix)) return undefined;
    const isStandalone = replay.streamId === this.#standaloneId;
    const writer = new SseWriter(() => {
      if (isStandalone && this.#standalone === writer) this.#standalone = undefined;
      this.lastActive = this.settings.now();
    }, isStandalone ? this.settings.keepAliveMs : 0);
    for (const event of replay.events) {
      if (event.data !== "") writer.send(event);
    }
    if (isStandalone) {
      this.#standalone?.close();
      this.#standalone = writer;
      for (const data of this.#queued.splice(0)) this.#sendStandalone(data);
      return writer;
    }
    const route = [...this.#routes.values()].find((r) => r.hasStream(replay.streamId));
    if (route === undefined) {
      writer.close();
    } else {
      route.resumeOn(writer);
    }
    return writer;
  }

  /**
   * Ends the session: aborts its requests, closes its streams, forgets its
   * events. `reason` is made only if a request is still in flight.
   */
  close(reason: () => unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.session.inflight.size > 0) this.session.inflight.abortAll(reason());
    this.session.detach();
    for (const route of new Set(this.#routes.values())) route.finish(undefined);
    this.#standalone?.close();
    this.settings.store.forget(this.#standaloneId);
    for (const streamId of this.#streams) this.settings.store.forget(streamId);
    this.#streams.clear();
  }

  #route(message: JsonRpcMessage, related: JsonRpcId | undefined): void {
    const data = eventData(message);
    const route = related === undefined ? undefined : this.#routes.get(related);
    if (route !== undefined && route.open) {
      route.push(data);
      return;
    }
    if (this.#standalone !== undefined && !this.#standalone.closed) {
      this.#sendStandalone(data);
      return;
    }
    // No stream to carry it yet: it waits for the client's GET.
    this.#queued.push(data);
    if (this.#queued.length > MAX_QUEUED) {
      this.#queued.shift();
      this.settings.log("warden: dropped a queued message: the client has no open GET stream");
    }
  }

  #sendStandalone(data: string): void {
    const id = this.settings.store.store(this.#standaloneId, data);
    this.#standalone?.send({ id, data });
  }
}
