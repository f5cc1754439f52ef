/**
 * Whether the host runs Deno's built-in OpenTelemetry: a question about the
 * environment, asked without loading any telemetry code, so that a server
 * whose telemetry is off never loads it.
 *
 * @module
 */

/**
 * Whether Deno's built-in OpenTelemetry is on (`OTEL_DENO=true`). Asked
 * without prompting: a process not allowed to read the variable has it off.
 *
 * @example
 * ```ts
 * import { telemetryEnabled } from "@warden/mcp/telemetry";
 * console.assert(typeof telemetryEnabled() === "boolean");
 * ```
 */
export function telemetryEnabled(): boolean {
  const deno: unknown = Reflect.get(globalThis, "Deno");
  if (typeof deno !== "object" || deno === null) return false;
  const permissions: unknown = Reflect.get(deno, "permissions");
  const env: unknown = Reflect.get(deno, "env");
  try {
    if (typeof permissions === "object" && permissions !== null) {
      const query: unknown = Reflect.get(permissions, "querySync");
      if (typeof query === "function") {
        const status: unknown = query.call(permissions, { name: "env", variable: "OTEL_DENO" });
        if (typeof status !== "object" || status === null) return false;
        if (Reflect.get(status, "state") !== "granted") return false;
      }
    }
    if (typeof env !== "object" || env === null) return false;
    const get: unknown = Reflect.get(env, "get");
    return typeof get === "function" && get.call(env, "OTEL_DENO") === "true";
  } catch {
    return false;
  }
}
