/**
 * The spelling property of encodings_test.ts over real stdio pipes: a child
 * process serving a deny rule is read with random spellings of denied and
 * allowed URIs, in the legacy session and as 2026-07-28 requests on the same
 * stdin. No denied path is ever served.
 */

import assert from "node:assert/strict";
import { ErrorCode, ModernErrorCode } from "../../../mod.ts";
import { isRecord } from "../../_helpers/helpers.ts";
import { spawnServer } from "../../_helpers/subprocess.ts";
import { seededRandom, spellings } from "../../_helpers/uri_spellings.ts";
import { paramsIn } from "../../_helpers/wire_clients.ts";

const DENIED = ["file:///data/secret.txt", "file:///data/private/keys.txt"];
const ALLOWED = "file:///data/public/a.txt";

Deno.test("over stdio, no spelling of a denied URI is served, in either era", async () => {
  const server = spawnServer(["run", "tests/fixtures/encodings_server.ts"]);
  try {
    await server.initialize();
    const random = seededRandom(2207);
    for (const era of ["legacy", "modern"] as const) {
      const denied = era === "legacy" ? ErrorCode.AccessDenied : ModernErrorCode.AccessDenied;
      for (const target of DENIED) {
        for (const spelling of spellings(target, random, 16, { hostCase: true })) {
          const reply = await server.call("resources/read", paramsIn(era, { uri: spelling.uri }));
          const code = isRecord(reply.error) ? reply.error.code : undefined;
          const expected: number[] = spelling.refuse ? [ErrorCode.InvalidParams, denied] : [denied];
          assert.ok(
            expected.includes(Number(code)),
            `${era} ${spelling.uri}: ${JSON.stringify(reply)}`,
          );
        }
      }
      for (const spelling of spellings(ALLOWED, random, 16, { hostCase: true })) {
        const reply = await server.call("resources/read", paramsIn(era, { uri: spelling.uri }));
        const what = `${era} ${spelling.uri}: ${JSON.stringify(reply)}`;
        if (spelling.refuse) {
          assert.ok(isRecord(reply.error) && reply.error.code === ErrorCode.InvalidParams, what);
          continue;
        }
        assert.ok(isRecord(reply.result), what);
        const [contents] = reply.result.contents as { text?: string }[];
        assert.equal(contents?.text, "path=public/a.txt", what);
      }
    }
    await server.closeInput();
    await server.pipesDone();
    const served = server.stderr.filter((line) => line.startsWith("served "));
    assert.ok(served.length > 0);
    assert.deepEqual(served.filter((line) => line !== "served public/a.txt"), []);
  } finally {
    await server.cleanUp();
  }
});
