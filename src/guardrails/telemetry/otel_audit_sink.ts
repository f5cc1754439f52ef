/**
 * The audit log as OpenTelemetry logs. Deno's built-in OpenTelemetry
 * (`OTEL_DENO=true`) exports console output as log records, with the trace
 * and span of the call being served, and registers no logs API a library
 * could call instead; so this sink writes each entry to the console's
 * stderr side, where Deno picks it up (`OTEL_DENO_CONSOLE=replace` sends it
 * only to the collector).
 *
 * @module
 */

import type { AuditEntry, AuditSink } from "../audit/audit.ts";
import { boundedEntryJson, DEFAULT_MAX_LINE_BYTES } from "../audit/audit_line.ts";

const PASSED: ReadonlySet<string> = new Set(["ok", "tool_error", "input_required"]);

/** An entry that cannot be serialised whole is still written (its arguments replaced). */
function ignore(): void {}

/**
 * A sink sending each audit entry to OpenTelemetry logs through Deno's
 * console capture, correlated with the call's span. Use it as
 * `"audit": "otel"` in a policy, or `createGuardrails({ audit: otelAuditSink() })`.
 *
 * @example
 * ```ts
 * import { createGuardrails } from "@warden/mcp/guardrails";
 * import { otelAuditSink } from "@warden/mcp/telemetry";
 * const guardrails = createGuardrails({ audit: otelAuditSink() });
 * ```
 */
export function otelAuditSink(options: {
  /**
   * Where an entry's JSON goes; Deno exports it as a log record.
   * @default {(line) => console.warn(line)} (WARN for refusals and failures; see `info`)
   */
  warn?: (line: string) => void;
  /**
   * Where the entry of a call that went through goes.
   * @default {(line) => console.warn(line)} (stderr: stdout may carry the protocol)
   */
  info?: (line: string) => void;
} = {}): AuditSink {
  const warn = options.warn ?? ((line: string) => console.warn(line));
  const info = options.info ?? warn;
  return {
    write(entry: AuditEntry) {
      // Bounded and with U+2028/U+2029 escaped, like the stderr and file sinks' lines.
      const line = `{"warden.audit":${boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, ignore)}}`;
      try {
        (PASSED.has(entry.outcome) ? info : warn)(line);
      } catch {
        // A console that throws must not fail the call; nothing else could report it.
      }
    },
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/** Options for {@linkcode otelAuditSink}. */
export type OtelAuditSinkOptions = NonNullable<Parameters<typeof otelAuditSink>[0]>;
