/**
 * OpenTelemetry for guarded calls, through Deno's built-in support
 * (`OTEL_DENO=true`): a span per call continuing the client's trace from
 * `_meta` `traceparent`/`tracestate` (SEP-414), and counters and a latency
 * histogram for calls and refusals. Nothing is loaded, and nothing runs per
 * call, when telemetry is off.
 *
 * @module
 */

import { loadOtelApi, type OtelApiModule } from "../../runtime/npm/otel.ts";
import type { CallOutcome } from "../../call/outcome.ts";
import type { GuardedCall } from "../../call/context.ts";
import type { Guardrail } from "../../call/guardrail.ts";
import { ErrorCode } from "../../jsonrpc/errors.ts";
import { ModernErrorCode } from "../../jsonrpc/modern_errors.ts";

/** The codes the 2026-07-28 era sends for the guardrails' refusals (see eras/modern/exchange.ts). */
const MODERN_CODES: ReadonlyMap<number, number> = new Map([
  [ErrorCode.AccessDenied, ModernErrorCode.AccessDenied],
  [ErrorCode.RateLimited, ModernErrorCode.RateLimited],
]);

/** Outcomes that are refusals by a guardrail (counted apart). */
const REFUSALS: ReadonlySet<string> = new Set([
  "denied",
  "rate_limited",
  "quota_exceeded",
  "invalid",
]);

interface Instruments {
  readonly api: OtelApiModule;
  readonly tracer: ReturnType<OtelApiModule["trace"]["getTracer"]>;
  readonly calls: ReturnType<ReturnType<OtelApiModule["metrics"]["getMeter"]>["createCounter"]>;
  readonly refusals: Instruments["calls"];
  readonly duration: ReturnType<
    ReturnType<OtelApiModule["metrics"]["getMeter"]>["createHistogram"]
  >;
}

async function instruments(): Promise<Instruments> {
  const api = await loadOtelApi();
  const meter = api.metrics.getMeter("warden");
  return {
    api,
    tracer: api.trace.getTracer("warden"),
    calls: meter.createCounter("warden.calls", {
      description: "Guarded calls, by method, kind and outcome",
    }),
    refusals: meter.createCounter("warden.refusals", {
      description: "Calls refused by a guardrail (access, rate limit, invalid input)",
    }),
    duration: meter.createHistogram("warden.call.duration", {
      description: "Time from a guarded call's start to its outcome",
      unit: "ms",
    }),
  };
}

/** The W3C trace context a request's `_meta` carries, if any. */
function traceCarrier(meta: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (meta === undefined) return carrier;
  for (const key of ["traceparent", "tracestate", "baggage"]) {
    const value = meta[key];
    if (typeof value === "string" && value.length <= 8192) carrier[key] = value;
  }
  return carrier;
}

/**
 * The telemetry step, outermost in the pipeline (stage `audit`, before the
 * audit log): `serverSetup()` adds it by itself when Deno's OpenTelemetry
 * is on (`OTEL_DENO=true`); a server built by hand adds it to its guardrails. The span is named `METHOD NAME` (e.g.
 * `tools/call get_order`) with the attributes `mcp.method.name`,
 * `warden.item.kind`, `warden.item.name`, `enduser.id` (the principal),
 * `warden.outcome` and, for an error, `rpc.jsonrpc.error_code`; its parent is
 * the `traceparent` in the request's `_meta`, else the active span. The
 * item's name passes the server's masker, like everything the server sends.
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@warden/mcp";
 * import { callTelemetry } from "@warden/mcp/telemetry";
 * const server = createServer({ name: "desk", version: "1.0.0", guardrails: [callTelemetry()] });
 * ```
 */
export function callTelemetry(): Guardrail {
  let loading: Promise<Instruments> | undefined;
  return {
    name: "telemetry",
    stage: "audit",
    async run(call: GuardedCall, next): Promise<CallOutcome> {
      const otel = await (loading ??= instruments());
      const { api } = otel;
      const carrier = traceCarrier(call.context._meta);
      const parent = carrier.traceparent === undefined
        ? api.context.active()
        : api.propagation.extract(api.ROOT_CONTEXT, carrier);
      // The name is the client's input, which no step has masked yet; the outcome's error
      // message below has passed the pipeline's masking like the reply that carries it.
      const mask = call.context.mask;
      const name = mask === undefined ? call.name : mask(call.name);
      const attributes: Record<string, string> = {
        "mcp.method.name": call.method,
        "warden.item.kind": call.kind,
        "warden.item.name": name,
      };
      const principal = call.context.principal;
      const span = otel.tracer.startSpan(`${call.method} ${name}`, {
        kind: api.SpanKind.SERVER,
        attributes: principal === undefined
          ? attributes
          : { ...attributes, "enduser.id": principal },
      }, parent);
      const started = performance.now();
      let outcome: CallOutcome | undefined;
      try {
        outcome = await api.context.with(api.trace.setSpan(parent, span), () => next(call));
        return outcome;
      } finally {
        const status = outcome?.status ?? "internal_error";
        const labels = { "mcp.method.name": call.method, "warden.outcome": status };
        span.setAttribute("warden.outcome", status);
        if (outcome !== undefined && "error" in outcome) {
          // The code as the client receives it in its era.
          const code = outcome.error.code;
          const sent = call.context.era === "modern" ? MODERN_CODES.get(code) ?? code : code;
          span.setAttribute("rpc.jsonrpc.error_code", sent);
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.error.message });
        } else if (outcome === undefined) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: "the call threw" });
        }
        span.end();
        otel.calls.add(1, labels);
        if (REFUSALS.has(status)) otel.refusals.add(1, labels);
        otel.duration.record(performance.now() - started, labels);
      }
    },
  };
}
