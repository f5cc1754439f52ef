/**
 * MCP's logging levels (RFC 5424 severities) and the check a handler's log
 * call goes through in either era.
 *
 * @module
 */

/** RFC 5424 severities, least severe first, as MCP's `logging/setLevel` names them. */
export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One of {@linkcode LOGGING_LEVELS}. */
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/** Whether `value` names a logging level. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === "string" && (LOGGING_LEVELS as readonly string[]).includes(value);
}

/** Whether a message at `level` passes a threshold of `minimum`. */
export function passesLevel(level: LoggingLevel, minimum: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(minimum);
}
