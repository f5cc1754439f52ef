/**
 * What `server.close()` does, in order: running tasks are cancelled,
 * subscriptions answered, every session's handlers aborted and its
 * connection ended (with one deadline for all of them), the change bus left,
 * the guardrails flushed (the audit log's last entries), and the shared
 * store closed last.
 *
 * @module
 */

import type { Guardrail } from "../call/guardrail.ts";
import type { McpSession } from "../core/session.ts";
import type { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import type { SharedStore } from "../store/shared_store.ts";
import type { ChangeFeed } from "./changes.ts";
import type { LiveSessions } from "./live_sessions.ts";

/** How long close() waits for aborted handlers to settle before flushing the guardrails. */
const ABORT_WAIT_MS = 1000;

/** What a server's shutdown ends. */
export interface ShutdownParts {
  /** The task runner, when the modern era was loaded (else the task store the options gave). */
  readonly tasks: { close(): Promise<void> };
  /** The modern era's subscriptions. */
  readonly subscriptions: SubscriptionHub;
  /** The session `server.handle()` runs on. */
  readonly embedded: McpSession;
  /** The sessions of connections and HTTP clients. */
  readonly live: LiveSessions;
  /** The change feed (and its bus). */
  readonly changes: ChangeFeed;
  /** The guardrails, to flush. */
  readonly guardrails: readonly Guardrail[];
  /** The shared store, closed last. */
  readonly store: SharedStore | undefined;
  /** Diagnostics. */
  readonly log: (message: string) => void;
}

/** Shuts a server down; a guardrail that fails to flush, or the store to close, is logged. */
export async function shutDown(parts: ShutdownParts): Promise<void> {
  // Running tasks become "cancelled" (statusMessage "The server shut down") before streams close.
  await parts.tasks.close();
  await endSubscriptions(parts.subscriptions);
  await endSessions(parts.embedded, parts.live);
  parts.changes.close();
  await flushGuardrails(parts.guardrails, parts.log);
  // The shared store closes last: the guardrails may still use it while flushing.
  await parts.store?.close().catch((error: unknown) =>
    parts.log(`warden: the shared store failed to close: ${String(error)}`)
  );
}

/**
 * Subscriptions end gracefully: their listen requests answer before the
 * streams close. The answer crosses several promise steps (handler,
 * dispatcher, transport); one turn of the event loop lets all of them run
 * before the sessions are closed under them.
 */
async function endSubscriptions(subscriptions: SubscriptionHub): Promise<void> {
  if (subscriptions.size === 0) return;
  subscriptions.endAll();
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Aborts every session's handlers and ends its connection, then waits for
 * the aborted handlers to settle. One deadline covers every wait, so a
 * handler that ignores its signal costs a second at most, however many
 * sessions wait for it.
 */
async function endSessions(embedded: McpSession, live: LiveSessions): Promise<void> {
  const reason = new Error("The server is shutting down");
  const ending = live.snapshot();
  const aborted = [embedded, ...ending.map((entry) => entry.session)];
  const deadline = Date.now() + ABORT_WAIT_MS;
  embedded.inflight.abortAll(reason);
  for (const { session, close } of ending) {
    session.inflight.abortAll(reason);
    close();
  }
  await Promise.allSettled(ending.map((entry) => entry.done));
  // An HTTP session ends as soon as its requests are aborted, before their handlers settle:
  // wait for them too, so every aborted call's audit entry reaches the sinks before the flush.
  while (aborted.some((session) => session.inflight.size > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Flushes every guardrail in turn; one that fails is logged and the rest still flush. */
async function flushGuardrails(
  guardrails: readonly Guardrail[],
  log: (message: string) => void,
): Promise<void> {
  for (const guardrail of guardrails) {
    try {
      await guardrail.flush?.();
    } catch (error) {
      log(`warden: guardrail '${guardrail.name}' failed to flush: ${String(error)}`);
    }
  }
}
