/**
 * The rate limiter over a {@linkcode SharedStore} that lives outside the
 * process (Redis, Deno KV): each call's buckets are taken in one atomic store
 * operation, so every instance sharing the store draws from the same
 * buckets. The in-process path (`rate_limit.ts`) stays synchronous.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../../jsonrpc/errors.ts";
import type { BucketTake, SharedStore } from "../../store/shared_store.ts";
import { StoreUnavailableError } from "../../store/shared_store.ts";
import { itemLabel } from "../access/access_policy.ts";
import type { CallKind, GuardedCall } from "../../call/context.ts";
import type { CallOutcome } from "../../call/outcome.ts";
import type { Guardrail } from "../../call/guardrail.ts";

/** What to do with a call while the shared store cannot be reached. */
export type StoreOutagePolicy = "fail-closed" | "fail-open";

/** The shell around a shared store: the takes of a call, and the outage policy. */
export interface SharedLimiterDeps {
  /** The store the buckets live in. */
  readonly shared: SharedStore;
  /** The buckets a call draws from, one per rule that applies. */
  readonly plan: (
    call: { kind: CallKind; name: string; principal: string | undefined },
  ) => readonly BucketTake[];
  /**
   * Refuse calls (`fail-closed`) or let them through unlimited (`fail-open`)
   * while the store is down.
   * @default {"fail-closed"}
   */
  readonly onOutage?: StoreOutagePolicy;
}

/**
 * The rate-limit guardrail on a shared store. A refused call ends as the
 * in-process limiter's do (-32002, `{ retry_after_seconds }`); while the store
 * is unreachable a call is refused the same way with a message saying so
 * (`fail-closed`, the default), or passes unlimited (`fail-open`). Either
 * way the outage is reported once on stderr by the store, and nothing throws.
 * A verified multi round-trip continuation is not charged again.
 *
 * @example
 * ```ts ignore
 * const guardrail = sharedRateLimit({ shared: store, plan: (call) => [] });
 * ```
 */
export function sharedRateLimit(deps: SharedLimiterDeps): Guardrail {
  const { shared, plan } = deps;
  const failOpen = deps.onOutage === "fail-open";
  return {
    name: "rate-limit",
    stage: "rate_limit",
    async run(call: GuardedCall, next): Promise<CallOutcome> {
      if (call.context.continuation) return next(call);
      const takes = plan({ kind: call.kind, name: call.name, principal: call.context.principal });
      if (takes.length === 0) return next(call);
      const label = itemLabel(call.kind, call.name, call.context.mask);
      let result;
      try {
        result = await shared.take(takes);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        if (failOpen) return next(call);
        return refused(
          `Rate limit unavailable: ${label}, the shared ${shared.kind} store cannot be reached; retry in 1 s`,
          1,
        );
      }
      if (result.allowed) return next(call);
      const seconds = result.retryAfterSeconds;
      return refused(`Rate limit exceeded: ${label}, retry in ${seconds} s`, seconds);
    },
  };
}

function refused(message: string, seconds: number): CallOutcome {
  return {
    status: "rate_limited",
    error: new RpcError(ErrorCode.RateLimited, message, { retry_after_seconds: seconds }),
  };
}
