/**
 * The access policy inside a server: denied items hidden from the lists,
 * per-principal rules by the session's principal, and every way a client
 * might try to get past it (choosing its principal, lookalike names and
 * URIs, probing which names exist).
 */

import assert from "node:assert/strict";
import { ErrorCode } from "../../../mod.ts";
import type { AuditSink } from "../../../guardrails.ts";
import type { GuardrailsConfig } from "../../../src/guardrails/policy/create_guardrails.ts";
import { errorOf, initialize, isRecord, request } from "../../_helpers/helpers.ts";
import { desk, namesIn, session } from "../../_helpers/guarded_desk.ts";

const LISTS = [
  request("tools", "tools/list"),
  request("resources", "resources/list"),
  request("prompts", "prompts/list"),
];

Deno.test("the access policy hides denied tools, resources and prompts from the lists", async () => {
  const { server } = desk();
  const replies = await session(server, LISTS);
  assert.deepEqual(namesIn(replies.get("tools"), "tools"), ["crash", "fail", "get_order", "login"]);
  assert.deepEqual(namesIn(replies.get("resources"), "resources", "uri"), [
    "orders://ORD-1",
    "orders://bad",
    "orders://broken",
  ]);
  assert.deepEqual(namesIn(replies.get("prompts"), "prompts"), [
    "broken_prompt",
    "review",
    "summarize",
  ]);
});

/** Allow lists for everyone, widened for `admin`, narrowed for `auditor`. */
function principalPolicy(audit: AuditSink): GuardrailsConfig {
  return {
    access: {
      tools: { allow: ["get_order"], deny: ["crash"] },
      principals: {
        admin: { tools: { allow: ["*"] }, resources: { deny: ["orders://*"] } },
        auditor: { prompts: { allow: ["review"] } },
      },
    },
    audit,
  };
}

Deno.test("the access policy applies per-principal rules by the session's principal", async () => {
  const { server, entries } = desk(principalPolicy);
  const messages = [
    ...LISTS,
    request("cancel", "tools/call", { name: "cancel_order", arguments: { order_id: "ORD-1" } }),
    request("crash", "tools/call", { name: "crash" }),
    request("vault", "resources/read", { uri: "vault://keys" }),
    request("order", "resources/read", { uri: "orders://ORD-1" }),
  ];
  const cases: [
    principal: string | undefined,
    tools: string[],
    resources: string[],
    prompts: string[],
  ][] = [
    // createServer({ principal: "alice" }) applies when connect() names none; alice has no own rules.
    [undefined, ["get_order"], [
      "orders://ORD-1",
      "orders://bad",
      "orders://broken",
      "vault://keys",
    ], ["broken_prompt", "internal_notes", "review", "summarize"]],
    ["admin", ["cancel_order", "fail", "get_order", "login"], ["vault://keys"], [
      "broken_prompt",
      "internal_notes",
      "review",
      "summarize",
    ]],
    ["auditor", ["get_order"], [
      "orders://ORD-1",
      "orders://bad",
      "orders://broken",
      "vault://keys",
    ], ["review"]],
  ];
  for (const [principal, tools, resources, prompts] of cases) {
    const label = principal ?? "the server's principal";
    const replies = await session(server, messages, principal);
    assert.deepEqual(namesIn(replies.get("tools"), "tools"), tools, label);
    assert.deepEqual(namesIn(replies.get("resources"), "resources", "uri"), resources, label);
    assert.deepEqual(namesIn(replies.get("prompts"), "prompts"), prompts, label);
    const code = (id: string) => {
      const reply = replies.get(id);
      return isRecord(reply) && isRecord(reply.error) ? reply.error.code : "ok";
    };
    const allowed = (name: string) => tools.includes(name) ? "ok" : ErrorCode.AccessDenied;
    assert.equal(code("cancel"), allowed("cancel_order"), label);
    assert.equal(code("crash"), ErrorCode.AccessDenied, `${label}: deny beats allow`);
    assert.equal(code("vault"), resources.includes("vault://keys") ? "ok" : -32001, label);
    assert.equal(code("order"), resources.includes("orders://ORD-1") ? "ok" : -32001, label);
  }
  assert.deepEqual(
    [...new Set(entries.map((entry) => entry.principal))],
    ["alice", "admin", "auditor"],
  );
});

Deno.test("a client cannot choose its principal: clientInfo, _meta and params are ignored", async () => {
  const { server, entries, calls } = desk(principalPolicy);
  const replies = await session(
    server,
    [
      request("tools", "tools/list"),
      request(1, "tools/call", { name: "cancel_order", arguments: { order_id: "ORD-1" } }),
      request(2, "tools/call", {
        name: "cancel_order",
        arguments: { order_id: "ORD-1" },
        _meta: { principal: "admin" },
        principal: "admin",
      }),
    ],
    undefined,
    "admin",
  );
  assert.deepEqual(namesIn(replies.get("tools"), "tools"), ["get_order"]);
  assert.equal(errorOf(replies.get(1)).code, ErrorCode.AccessDenied);
  assert.equal(errorOf(replies.get(2)).code, ErrorCode.AccessDenied);
  assert.deepEqual(calls, []);
  assert.deepEqual(entries.map((entry) => [entry.principal, entry.client?.name]), [
    ["alice", "admin"],
    ["alice", "admin"],
  ]);
});

/** Names that look like cancel_order, or try to reach a prototype, or abuse the glob syntax. */
const LOOKALIKES: readonly string[] = [
  "Cancel_order",
  "CANCEL_ORDER",
  "cancel_order ",
  " cancel_order",
  "cancel_order\u0000",
  "cancel_order\n",
  "c\u0430ncel_order", // Cyrillic а (U+0430)
  "cancel\u200border", // zero-width space
  "cancel_ord\u0435r", // Cyrillic е (U+0435)
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "*",
  "cancel_*",
  "*_order",
  "get_*",
  "x".repeat(10_000),
  `cancel_order${"x".repeat(10_000)}`,
];

Deno.test("no lookalike name reaches a denied tool's handler, through a deny rule or an allow list", async () => {
  const denyOnly = (audit: AuditSink): GuardrailsConfig => ({
    access: { tools: { deny: ["cancel_order"] } },
    audit,
  });
  const allowList = (audit: AuditSink): GuardrailsConfig => ({
    access: { tools: { allow: ["get_order"] } },
    audit,
  });
  for (const [label, config] of [["deny", denyOnly], ["allow", allowList]] as const) {
    const { server, calls, entries } = desk(config);
    await server.handle(initialize(0));
    let id = 1;
    for (const name of [...LOOKALIKES, "cancel_order"]) {
      const shown = JSON.stringify(name.slice(0, 20));
      const reply = await server.handle(
        request(id++, "tools/call", { name, arguments: { order_id: "ORD-1" } }),
      );
      const error = errorOf(reply);
      // Matching is exact: a lookalike is a different, unregistered name.
      const expected = label === "deny" && name !== "cancel_order"
        ? ErrorCode.MethodNotFound
        : ErrorCode.AccessDenied;
      assert.equal(error.code, expected, `${label} ${shown}`);
      // A huge name is never echoed whole, and control characters are escaped.
      assert.ok(error.message.length < 120, `${label} ${shown}: ${error.message.length} chars`);
      const controls = [...error.message].filter((char) => char.charCodeAt(0) < 0x20);
      assert.deepEqual(controls, [], `${label} ${shown}`);
    }
    assert.deepEqual(calls, [], label);
    assert.equal(entries.length, LOOKALIKES.length + 1, label);
  }
});

Deno.test("a denied name is refused with -32001 whether or not it exists (no existence oracle)", async () => {
  const { server, calls } = desk((audit) => ({
    access: {
      tools: { deny: ["cancel_*"] },
      resources: { allow: ["orders://ORD-*"] },
      prompts: { allow: ["summarize"] },
    },
    audit,
  }));
  const cases: [method: string, params: Record<string, unknown>, message: string][] = [
    ["tools/call", { name: "cancel_order" }, 'tool "cancel_order"'],
    ["tools/call", { name: "cancel_everything" }, 'tool "cancel_everything"'],
    ["resources/read", { uri: "vault://keys" }, 'resource "vault://keys"'],
    ["resources/read", { uri: "vault://nothing-here" }, 'resource "vault://nothing-here"'],
    // Allowed in canonical form, not as sent: forms decided differently are refused, named canonically.
    ["resources/read", { uri: "ORDERS://ORD-1" }, 'resource "orders://ORD-1"'],
    ["prompts/get", { name: "internal_notes" }, 'prompt "internal_notes"'],
    ["prompts/get", { name: "internal_nothing" }, 'prompt "internal_nothing"'],
  ];
  for (const [method, params, label] of cases) {
    const error = errorOf(await server.handle(request(1, method, params)));
    assert.deepEqual(error, { code: ErrorCode.AccessDenied, message: `Access denied: ${label}` });
  }
  assert.deepEqual(calls, []);
});

Deno.test("resource URIs are matched exactly: lookalikes of a denied URI never reach its reader", async () => {
  const { server, calls } = desk((audit) => ({
    access: { resources: { allow: ["orders://*"], deny: ["vault://*"] } },
    audit,
  }));
  for (
    const uri of [
      "Vault://keys",
      "VAULT://keys",
      " vault://keys",
      "vault://keys ",
      "vault://keys/",
      "vault://keys?x=1",
      "vault://./keys",
      "vault://%6Beys",
      "vault:/keys",
      "orders://../vault://keys",
    ]
  ) {
    const error = errorOf(await server.handle(request(1, "resources/read", { uri })));
    // Only the last one is inside the allow list; it names no registered resource.
    const expected = uri.startsWith("orders://")
      ? ErrorCode.MethodNotFound
      : ErrorCode.AccessDenied;
    assert.equal(error.code, expected, uri);
  }
  assert.deepEqual(calls, []);
});
