/**
 * A server script's standard command line (`--policy`, `--audit`,
 * `--principal`, `--http`, `--store`, `--help`, `--version`) and the policy
 * file, turned into `createServer()` options. The guardrails, stores and
 * telemetry a setup asks for load only when it asks for them.
 *
 * @example A server that takes the standard flags
 * ```ts
 * import { createServer, serveHttp, serveStdio } from "@warden/mcp";
 * import { serverSetup } from "@warden/mcp/setup";
 *
 * const identity = { name: "desk", version: "1.0.0" };
 * const setup = await serverSetup(identity);
 * const server = createServer({ ...identity, ...setup });
 * await (setup.http ? serveHttp(server, setup.http) : serveStdio(server));
 * ```
 *
 * @module
 */

export { type ServerIdentity, type ServerSetup, serverSetup } from "./src/setup/flags.ts";
export { loadPolicyFile, parsePolicy } from "./src/setup/policy_file.ts";
