/**
 * Names an attacker picks from `Object.prototype` (`__proto__`,
 * `constructor`, `toString`, …) as method names, tool and prompt names,
 * resource URIs, argument names, completion context keys, HTTP header names
 * and policy-file keys, over the memory pair (stdio's path) and Streamable
 * HTTP in both eras: each gets the answer any unknown or ordinary name gets,
 * nothing reaches a prototype, and the server stays up.
 */

import assert from "node:assert/strict";
import {
  createServer,
  defineTool,
  ErrorCode,
  ModernErrorCode,
  type ServerOptions,
} from "../../mod.ts";
import { createGuardrails } from "../../guardrails.ts";
import { parsePolicy } from "../../src/setup/policy_file.ts";
import { translateRe2 } from "../../src/guardrails/redact/re2.ts";
import { isRecord, MODERN, request } from "../_helpers/helpers.ts";
import { jsonOf, modernPost } from "../_helpers/http_helpers.ts";
import {
  codeOf,
  ERAS,
  httpWire,
  memoryWire,
  type Message,
  paramsIn,
  type Wire,
  type WireEra,
  WIRES,
} from "../_helpers/wire_clients.ts";

const KEYS = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "isPrototypeOf",
  "__lookupGetter__",
];

/** An object whose own keys are `keys` (JSON.parse keeps `__proto__` as an own key). */
function ownKeys(keys: readonly string[], value: unknown): Record<string, unknown> {
  return JSON.parse(
    `{${keys.map((key) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`,
  );
}

function items(): Pick<ServerOptions, "tools" | "prompts" | "resources" | "resourceTemplates"> {
  return {
    tools: [
      defineTool({
        name: "echo",
        description: "Echoes its arguments' own keys",
        inputSchema: { type: "object" },
        handler: (args) =>
          JSON.stringify({
            own: Object.keys(args).sort(),
            prototype: Object.getPrototypeOf(args) === Object.prototype,
          }),
      }),
      defineTool({
        name: "strict",
        description: "Takes only q",
        inputSchema: {
          type: "object",
          properties: { q: { type: "string" } },
          additionalProperties: false,
        },
        handler: ({ q }) => `q=${q}`,
      }),
    ],
    prompts: [{
      name: "brief",
      arguments: [{
        name: "topic",
        complete: (value, context) => [
          String(Object.hasOwn(context.arguments, value)),
          typeof context.arguments[value],
        ],
      }],
      get: ({ topic }) => `Brief on ${topic}`,
    }],
    resources: [{ uri: "docs://readme", name: "readme", read: () => "read me" }],
  };
}

function textOf(reply: Message): string {
  assert.ok(isRecord(reply.result), JSON.stringify(reply));
  const [block] = reply.result.content as { text?: string }[];
  return block?.text ?? "";
}

async function assertUnknownMethod(
  wire: Wire,
  era: WireEra,
  key: string,
  what: string,
): Promise<void> {
  const method = await wire.request(key, paramsIn(era, {}));
  assert.equal(codeOf(method), ErrorCode.MethodNotFound, `${what} ${JSON.stringify(method)}`);
  assert.doesNotMatch(JSON.stringify(method), /native code|function/, what);
}

/** The code for an unknown tool, prompt or resource in `era`. */
function unknownItem(era: WireEra): number {
  return era === "legacy" ? ErrorCode.MethodNotFound : ErrorCode.InvalidParams;
}

Deno.test("prototype keys as method, tool, prompt and resource names are unknown names, in every era and transport", async () => {
  for (const [transport, open] of WIRES) {
    for (const era of ERAS) {
      const label = `${transport}/${era}`;
      const server = createServer({ name: "proto", version: "1.0.0", ...items() });
      const wire = await open(server, era);
      for (const key of KEYS) {
        const what = `${label}: ${key}`;
        if (transport !== "http" || era !== "modern") {
          await assertUnknownMethod(wire, era, key, what);
        }
        for (
          const [call, params] of [
            ["tools/call", { name: key, arguments: {} }],
            ["prompts/get", { name: key }],
            ["resources/read", { uri: key }],
          ] as const
        ) {
          const reply = await wire.request(call, paramsIn(era, params));
          assert.equal(codeOf(reply), unknownItem(era), `${what} ${call} ${JSON.stringify(reply)}`);
          assert.doesNotMatch(JSON.stringify(reply), /native code/, what);
        }
      }
      assert.equal(
        textOf(await wire.request("tools/call", paramsIn(era, { name: "echo", arguments: {} }))),
        '{"own":[],"prototype":true}',
        label,
      );
      await server.close();
      await wire.close();
    }
  }
});

// Over HTTP the 2026-07-28 header checks look the method up too: a prototype key there must be an
// unknown method, not a header mismatch.
Deno.test("prototype keys as method names over HTTP in the 2026-07-28 era are unknown methods", async () => {
  const server = createServer({ name: "proto", version: "1.0.0", ...items() });
  const wire = await httpWire(server, "modern");
  for (const key of KEYS) await assertUnknownMethod(wire, "modern", key, `http/modern: ${key}`);
  await server.close();
  await wire.close();
});

Deno.test("prototype keys as argument names and completion context keys stay ordinary own keys", async () => {
  for (const [transport, open] of WIRES) {
    for (const era of ERAS) {
      const label = `${transport}/${era}`;
      const server = createServer({ name: "proto", version: "1.0.0", ...items() });
      const wire = await open(server, era);
      const args = ownKeys(KEYS, "x");
      const echoed = JSON.parse(
        textOf(await wire.request("tools/call", paramsIn(era, { name: "echo", arguments: args }))),
      );
      assert.deepEqual(echoed, { own: [...KEYS].sort(), prototype: true }, label);
      const strict = await wire.request(
        "tools/call",
        paramsIn(era, { name: "strict", arguments: args }),
      );
      const refused = codeOf(strict) === ErrorCode.InvalidParams ||
        (isRecord(strict.result) && strict.result.isError === true);
      assert.ok(refused, `${label}: ${JSON.stringify(strict)}`);
      const prompt = await wire.request(
        "prompts/get",
        paramsIn(era, { name: "brief", arguments: { ...args, topic: "t" } }),
      );
      assert.ok(isRecord(prompt.result), `${label}: ${JSON.stringify(prompt)}`);
      for (const key of KEYS) {
        const complete = (context: Record<string, unknown>) =>
          wire.request(
            "completion/complete",
            paramsIn(era, {
              ref: { type: "ref/prompt", name: "brief" },
              argument: { name: "topic", value: key },
              context: { arguments: context },
            }),
          );
        const values = (reply: Message) =>
          isRecord(reply.result) && isRecord(reply.result.completion)
            ? reply.result.completion.values
            : reply;
        assert.deepEqual(values(await complete({})), ["false", "undefined"], `${label}: ${key}`);
        assert.deepEqual(
          values(await complete(ownKeys([key], "v"))),
          ["true", "string"],
          `${label}: ${key}`,
        );
      }
      assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "x"), false);
      assert.equal(
        ({} as Record<string, unknown>).x,
        undefined,
        `${label}: Object.prototype was polluted`,
      );
      await server.close();
      await wire.close();
    }
  }
});

Deno.test("prototype keys as HTTP header names and Mcp-Name values are ordinary headers", async () => {
  const server = createServer({ name: "proto", version: "1.0.0", ...items() });
  for (const key of KEYS) {
    const body = request(1, "tools/call", paramsIn("modern", { name: "echo", arguments: {} }));
    const ok = await modernPost(server, body, { [key]: "1", "x-extra": key });
    assert.equal(ok.status, 200, key);
    assert.ok(isRecord((await jsonOf(ok)).result), key);
    const unknown = await modernPost(
      server,
      request(2, "tools/call", paramsIn("modern", { name: key })),
    );
    const reply = await jsonOf(unknown);
    assert.equal(codeOf(reply), ErrorCode.InvalidParams, `${key}: ${JSON.stringify(reply)}`);
  }
  assert.equal(MODERN, "2026-07-28");
  await server.close();
});

Deno.test("prototype keys in a policy file are ordinary principals, cost keys and globs", async () => {
  // Written as text: in a JS object literal `__proto__: …` would set the prototype instead.
  const principals = KEYS.map((key) => `${JSON.stringify(key)}: { "tools": { "deny": ["*"] } }`);
  const text = `{
    "access": { "principals": { ${principals.join(", ")} }, "tools": { "deny": ["toString"] } },
    "rateLimit": { "rules": [{
      "scope": "tool", "match": ["echo"], "capacity": 3, "refillPerSecond": 0.001,
      "cost": { "__proto__": 2, "constructor": 3, "echo": 2 }
    }] }
  }`;
  const config = await parsePolicy(text, "proto.jsonc");
  const serve = (principal: string) =>
    createServer({
      name: "proto",
      version: "1.0.0",
      principal,
      guardrails: createGuardrails(config),
      ...items(),
    });
  for (const era of ERAS) {
    const denied = era === "legacy" ? ErrorCode.AccessDenied : ModernErrorCode.AccessDenied;
    const limited = era === "legacy" ? ErrorCode.RateLimited : ModernErrorCode.RateLimited;
    for (const principal of KEYS) {
      const server = serve(principal);
      const wire = await memoryWire(server, era);
      const reply = await wire.request(
        "tools/call",
        paramsIn(era, { name: "echo", arguments: {} }),
      );
      assert.equal(codeOf(reply), denied, `${era}: principal ${principal}`);
      await server.close();
      await wire.close();
    }
    const server = serve("alice");
    const wire = await memoryWire(server, era);
    const toString = await wire.request("tools/call", paramsIn(era, { name: "toString" }));
    assert.equal(codeOf(toString), denied, era);
    const codes: (number | undefined)[] = [];
    for (let i = 0; i < 2; i++) {
      codes.push(
        codeOf(await wire.request("tools/call", paramsIn(era, { name: "echo", arguments: {} }))),
      );
    }
    assert.deepEqual(codes, [undefined, limited], `${era}: echo costs 2 of 3`);
    await server.close();
    await wire.close();
  }
  await assert.rejects(parsePolicy('{"__proto__": {}}', "proto.jsonc"), /unknown key "__proto__"/);
  await assert.rejects(
    parsePolicy('{"access": {"constructor": {}}}', "proto.jsonc"),
    /unknown key "constructor"/,
  );
});

Deno.test("a prototype key as a POSIX class name in an imported gitleaks pattern is an unknown class", () => {
  for (const key of KEYS) {
    assert.throws(() => translateRe2(`x[[:${key}:]]`), /unknown POSIX class/, key);
  }
  assert.ok(translateRe2("x[[:alpha:]]"));
});
