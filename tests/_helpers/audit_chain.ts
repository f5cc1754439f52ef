/** A server that audits echo calls to a file, for the audit chain's tests. */

import { createServer } from "../../mod.ts";
import { auditLog, fileAuditSink } from "../../guardrails.ts";
import { echoFixtures, initialize, request } from "./helpers.ts";

/** Runs `calls` echo calls through a server auditing to `path`, then closes it (the checkpoint). */
export async function runServer(
  path: string,
  calls: readonly unknown[],
  options: { key?: string; maxLineBytes?: number } = {},
): Promise<void> {
  const server = createServer({
    name: "t",
    version: "1",
    ...echoFixtures(),
    guardrails: [auditLog({ sink: fileAuditSink(path), ...options })],
  });
  await server.handle(initialize());
  let id = 1;
  for (const text of calls) {
    await server.handle(request(++id, "tools/call", { name: "echo", arguments: { text } }));
  }
  await server.close();
}
