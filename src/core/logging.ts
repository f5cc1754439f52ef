/**
 * MCP's logging levels (RFC 5424 severities) and the check a handler's log
 * call goes through in either era.
 *
 * @module
 */

/**
 * An RFC 5424 severity, as MCP's `logging/setLevel` names it.
 *
 * @example Logging a sync's result at the level it deserves
 * ```ts
 * import type { LoggingLevel, RequestContext } from "@warden/mcp";
 * function reportSync(ctx: RequestContext, failed: number, total: number): void {
 *   const level: LoggingLevel = failed === 0 ? "info" : failed < total ? "warning" : "error";
 *   ctx.log(level, { synced: total - failed, failed }, "sync");
 * }
 * ```
 */
export type LoggingLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** Every {@linkcode LoggingLevel}, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** Whether `value` names a logging level. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === "string" && (LOGGING_LEVELS as readonly string[]).includes(value);
}

/** Whether a message at `level` passes a threshold of `minimum`. */
export function passesLevel(level: LoggingLevel, minimum: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(minimum);
}
