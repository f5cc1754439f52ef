/**
 * What a message acts on, for scope checks before dispatch, and which
 * scopes an item needs: tables over every method that names an item, in
 * batches too, and over overlapping scope rules.
 */

import assert from "node:assert/strict";
import { itemsOf } from "../../src/auth/items.ts";
import { compileScopes, missingScopes, scopesNeeded } from "../../src/auth/scopes.ts";

Deno.test("itemsOf() names the item of every method that acts on one, and nothing for the rest", () => {
  const cases: [unknown, unknown][] = [
    [{ method: "tools/call", params: { name: "t" } }, [{ kind: "tool", name: "t" }]],
    [{ method: "prompts/get", params: { name: "p" } }, [{ kind: "prompt", name: "p" }]],
    [{ method: "resources/read", params: { uri: "u://a" } }, [{ kind: "resource", name: "u://a" }]],
    [{ method: "resources/subscribe", params: { uri: "u://a" } }, [{
      kind: "resource",
      name: "u://a",
    }]],
    [{ method: "resources/unsubscribe", params: { uri: "u://a" } }, [{
      kind: "resource",
      name: "u://a",
    }]],
    [
      { method: "completion/complete", params: { ref: { type: "ref/prompt", name: "p" } } },
      [{ kind: "prompt", name: "p" }],
    ],
    [
      { method: "completion/complete", params: { ref: { type: "ref/resource", uri: "u://{x}" } } },
      [{ kind: "resource", name: "u://{x}" }],
    ],
    [
      {
        method: "subscriptions/listen",
        params: { notifications: { resourceSubscriptions: ["u://a", 7, "u://b"] } },
      },
      [{ kind: "resource", name: "u://a" }, { kind: "resource", name: "u://b" }],
    ],
    [
      [{ method: "tools/call", params: { name: "a" } }, {
        method: "tools/call",
        params: { name: "b" },
      }],
      [{ kind: "tool", name: "a" }, { kind: "tool", name: "b" }],
    ],
    [{ method: "tools/call", params: { name: 7 } }, []],
    [{ method: "tools/list", params: {} }, []],
    [{ method: "tools/call" }, []],
    ["not a message", []],
    [null, []],
  ];
  for (const [message, items] of cases) {
    assert.deepEqual(itemsOf(message), items, JSON.stringify(message));
  }
});

Deno.test("every matching scope rule adds its scopes, in order, once", () => {
  const compiled = compileScopes({
    tools: { "*": ["base"], "refund_*": ["orders:write", "base"], "refund_big": ["approve"] },
    resources: { "notes://private/*": ["notes:read"] },
  });
  assert.deepEqual(scopesNeeded(compiled, "tool", "refund_big"), [
    "base",
    "orders:write",
    "approve",
  ]);
  assert.deepEqual(scopesNeeded(compiled, "tool", "get_order"), ["base"]);
  assert.deepEqual(scopesNeeded(compiled, "resource", "notes://private/1"), ["notes:read"]);
  assert.deepEqual(scopesNeeded(compiled, "resource", "notes://public/1"), []);
  assert.deepEqual(scopesNeeded(compiled, "prompt", "anything"), []);
  assert.deepEqual(missingScopes(["base"], ["base", "approve"]), ["approve"]);
  assert.throws(() => compileScopes({ tools: { "": ["x"] } }), RangeError);
  assert.throws(() => compileScopes({ tools: { "x": ["a b"] } }), TypeError);
  assert.throws(() => compileScopes({ tools: { "x": [] } }), TypeError);
});

Deno.test("a resource needs the scopes of every spelling: escapes, dot segments and host case cannot dodge a rule", () => {
  const compiled = compileScopes({
    resources: { "notes://private/*": ["notes:read"], "https://docs.example.com/*": ["docs"] },
  });
  for (
    const uri of [
      "notes://private/1",
      "notes://private/%31",
      "notes://private/x/../1",
      "NOTES://private/1",
      "notes://%70rivate/1",
    ]
  ) {
    assert.deepEqual(scopesNeeded(compiled, "resource", uri), ["notes:read"], uri);
  }
  assert.deepEqual(scopesNeeded(compiled, "resource", "https://DOCS.example.com/a"), ["docs"]);
  assert.deepEqual(scopesNeeded(compiled, "resource", "notes://public/1"), []);
  // A rule that cannot be put in canonical form is refused at start-up.
  assert.throws(() => compileScopes({ resources: { "notes://%00/*": ["x"] } }), RangeError);
});
