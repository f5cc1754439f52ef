/**
 * The 2025-06-18 server features of issue 5 that flow from client to server
 * (logging, progress, list changes, templates, subscriptions, completion,
 * pagination, tool metadata), each through a live in-memory session driven by
 * a raw JSON-RPC client. Requests the server makes of the client are in
 * client_asks_test.ts.
 */

import assert from "node:assert/strict";
import { defineTool, ErrorCode, type Server, type ServerOptions } from "../../mod.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import { createGuardrails } from "../../guardrails.ts";
import { LOGGING_LEVELS } from "../../src/core/logging.ts";
import { errorOf, isRecord, resultOf } from "../_helpers/helpers.ts";
import {
  connectPeer,
  EMPTY,
  type Message,
  type Peer,
  testServer,
  textOf,
} from "../_helpers/peer.ts";

// --- logging ---

const loggingTool = defineTool({
  name: "log_all",
  description: "Logs once at every level",
  inputSchema: EMPTY,
  handler: (_args, ctx) => {
    for (const level of LOGGING_LEVELS) ctx.log(level, `at ${level}`, "levels");
    return "logged";
  },
});

Deno.test("logging/setLevel filters ctx.log at each RFC 5424 level, from info by default", async () => {
  const server = testServer({ tools: [loggingTool] });
  await using peer = await connectPeer(server);

  const sentLevels = async () => {
    assert.equal(textOf(await peer.call("log_all")), "logged");
    return peer.drain("notifications/message").map((message) => {
      assert.ok(isRecord(message.params));
      assert.equal(message.params.logger, "levels");
      assert.equal(message.params.data, `at ${String(message.params.level)}`);
      return message.params.level;
    });
  };
  assert.deepEqual(await sentLevels(), LOGGING_LEVELS.slice(1));
  for (const [index, level] of LOGGING_LEVELS.entries()) {
    assert.deepEqual(resultOf(await peer.request("logging/setLevel", { level })), {});
    assert.deepEqual(await sentLevels(), LOGGING_LEVELS.slice(index), level);
  }
});

Deno.test("logging/setLevel refuses an unknown level with -32602 and keeps the old one", async () => {
  const server = testServer({ tools: [loggingTool] });
  await using peer = await connectPeer(server);
  resultOf(await peer.request("logging/setLevel", { level: "error" }));
  for (const level of ["warn", "INFO", "", 3, null, undefined]) {
    const params = level === undefined ? {} : { level };
    const reply = await peer.request("logging/setLevel", params);
    assert.equal(errorOf(reply).code, ErrorCode.InvalidParams, JSON.stringify(params));
  }
  await peer.call("log_all");
  const levels = peer.drain("notifications/message").map((m) =>
    isRecord(m.params) && m.params.level
  );
  assert.deepEqual(levels, ["error", "critical", "alert", "emergency"]);
});

Deno.test("initialize advertises logging, and ctx.log data passes through the redactor", async () => {
  const token = `ghp_${"a1B2".repeat(9)}`;
  const server = testServer({
    guardrails: createGuardrails({ redact: true }),
    tools: [defineTool({
      name: "leaky",
      description: "Logs secrets",
      inputSchema: EMPTY,
      handler: (_args, ctx) => {
        ctx.log("info", { user: "ada", password: "hunter2" });
        ctx.log("warning", `password: hunter2`);
        ctx.log("error", `pushing with ${token}`, "git");
        return "done";
      },
    })],
  });
  await using peer = await connectPeer(server);
  const { capabilities } = peer.initialized;
  assert.deepEqual(isRecord(capabilities) && capabilities.logging, {});
  await peer.call("leaky");
  const sent = peer.drain("notifications/message").map((message) => message.params);
  assert.equal(sent.length, 3);
  assert.deepEqual(sent[0], { level: "info", data: { user: "ada", password: "[REDACTED]" } });
  assert.ok(isRecord(sent[1]) && typeof sent[1].data === "string");
  assert.doesNotMatch(sent[1].data, /hunter2/);
  assert.ok(isRecord(sent[2]) && typeof sent[2].data === "string");
  assert.equal(sent[2].logger, "git");
  assert.doesNotMatch(sent[2].data, /ghp_/);
  assert.match(sent[2].data, /^pushing with \[REDACTED\]/);
});

// --- progress ---

const progressTool = defineTool({
  name: "work",
  description: "Reports three steps",
  inputSchema: EMPTY,
  handler: (_args, ctx) => {
    ctx.progress(1, 3, "first");
    ctx.progress(2, 3);
    ctx.progress(3);
    return `token ${JSON.stringify(ctx.progressToken)}`;
  },
});

Deno.test("ctx.progress sends notifications/progress with the request's token (string or integer)", async () => {
  const server = testServer({ tools: [progressTool] });
  await using peer = await connectPeer(server);
  for (const progressToken of ["tok-1", 0, 42]) {
    const reply = await peer.call("work", {}, { progressToken });
    assert.equal(textOf(reply), `token ${JSON.stringify(progressToken)}`);
    assert.deepEqual(peer.drain("notifications/progress").map((message) => message.params), [
      { progressToken, progress: 1, total: 3, message: "first" },
      { progressToken, progress: 2, total: 3 },
      { progressToken, progress: 3 },
    ]);
  }
});

Deno.test("ctx.progress sends nothing when the request carries no progress token", async () => {
  const server = testServer({ tools: [progressTool] });
  await using peer = await connectPeer(server);
  for (const meta of [undefined, {}, { progressToken: null }, { progressToken: { a: 1 } }]) {
    assert.equal(textOf(await peer.call("work", {}, meta)), "token undefined");
    assert.deepEqual(peer.drain("notifications/progress"), [], JSON.stringify(meta));
  }
});

Deno.test("ctx.progress throws RangeError to the tool when progress does not increase", async () => {
  const server = testServer({
    guardrails: createGuardrails({ redact: true }),
    tools: [defineTool({
      name: "stuck",
      description: "Reports progress badly",
      inputSchema: EMPTY,
      handler: (_args, ctx) => {
        ctx.progress(2, undefined, "key ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK");
        const refusals = [2, 1, Number.NaN, Number.POSITIVE_INFINITY].map((value) => {
          try {
            ctx.progress(value);
            return "sent";
          } catch (error) {
            return error instanceof RangeError ? "RangeError" : String(error);
          }
        });
        ctx.progress(2.5);
        return refusals.join(",");
      },
    })],
  });
  await using peer = await connectPeer(server);
  for (const meta of [{ progressToken: "p" }, undefined]) {
    const reply = await peer.call("stuck", {}, meta);
    assert.equal(textOf(reply), "RangeError,RangeError,RangeError,RangeError");
    const sent = peer.drain("notifications/progress").map((message) => message.params);
    if (meta === undefined) {
      assert.deepEqual(sent, []);
    } else {
      assert.deepEqual(sent, [
        { progressToken: "p", progress: 2, message: "key [REDACTED]" },
        { progressToken: "p", progress: 2.5 },
      ]);
    }
  }
});

// --- list changed ---

Deno.test("registering or removing an item on a live session sends the matching list_changed", async () => {
  const server = testServer({ tools: [progressTool] });
  await using idle = await connectPeer(server, { initialize: false });
  await using peer = await connectPeer(server);
  assert.deepEqual(peer.initialized.capabilities, { logging: {}, tools: { listChanged: true } });

  const changes: [() => unknown, string][] = [
    [() => server.tool({ ...loggingTool }), "tools"],
    [() => assert.equal(server.remove("tool", "log_all"), true), "tools"],
    [() => server.resource({ uri: "x://a", name: "a", read: () => "a" }), "resources"],
    [() => assert.equal(server.remove("resource", "x://a"), true), "resources"],
    [
      () => server.resourceTemplate({ uriTemplate: "x://{id}", name: "x", read: () => "x" }),
      "resources",
    ],
    [() => assert.equal(server.remove("resourceTemplate", "x://{id}"), true), "resources"],
    [() => server.prompt({ name: "p", get: () => "p" }), "prompts"],
    [() => assert.equal(server.remove("prompt", "p"), true), "prompts"],
  ];
  for (const [change, list] of changes) {
    change();
    assert.deepEqual(await peer.next(`notifications/${list}/list_changed`), {
      jsonrpc: "2.0",
      method: `notifications/${list}/list_changed`,
    });
  }
  // Removing what is not there changes nothing and says nothing.
  for (const type of ["tool", "resource", "resourceTemplate", "prompt"] as const) {
    assert.equal(server.remove(type, "missing"), false);
  }
  await peer.settle();
  assert.deepEqual(peer.drain("notifications/tools/list_changed"), []);
  assert.deepEqual(peer.drain("notifications/resources/list_changed"), []);
  assert.deepEqual(peer.drain("notifications/prompts/list_changed"), []);

  // A session that never initialized is not told.
  await idle.settle();
  for (const list of ["tools", "resources", "prompts"]) {
    assert.deepEqual(idle.drain(`notifications/${list}/list_changed`), [], list);
  }
});

Deno.test("initialize declares listChanged for tools, resources and prompts", async () => {
  const server = testServer({
    tools: [progressTool],
    resourceTemplates: [{ uriTemplate: "x://{id}", name: "x", read: () => "x" }],
    prompts: [{ name: "p", get: () => "p" }],
  });
  await using peer = await connectPeer(server);
  assert.deepEqual(peer.initialized.capabilities, {
    logging: {},
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
  });
});

// --- resource templates ---

function orderServer(extra: Partial<ServerOptions> = {}): Server {
  return testServer({
    resources: [{ uri: "orders://ORD-1", name: "ORD-1", read: () => "the concrete ORD-1" }],
    resourceTemplates: [
      {
        uriTemplate: "orders://{id}",
        name: "order",
        title: "An order",
        mimeType: "application/json",
        complete: {
          id: (value) => ["ORD-1", "ORD-2", "ORD-10"].filter((id) => id.startsWith(value)),
        },
        read: (variables, ctx) => ({ variables, uri: ctx.uri }),
      },
      { uriTemplate: "files://{+path}", name: "file", read: ({ path }) => `file at ${path}` },
    ],
    guardrails: createGuardrails({ access: { resources: { deny: ["orders://ORD-2"] } } }),
    ...extra,
  });
}

Deno.test("resources/templates/list lists the templates with their metadata", async () => {
  await using peer = await connectPeer(orderServer());
  assert.deepEqual(resultOf(await peer.request("resources/templates/list")), {
    resourceTemplates: [
      {
        uriTemplate: "orders://{id}",
        name: "order",
        title: "An order",
        mimeType: "application/json",
      },
      { uriTemplate: "files://{+path}", name: "file" },
    ],
  });
  assert.deepEqual(
    resultOf(await peer.request("resources/list")).resources,
    [{ uri: "orders://ORD-1", name: "ORD-1" }],
  );
});

Deno.test("resources/read prefers a concrete resource, then matches templates with their variables", async () => {
  await using peer = await connectPeer(orderServer());
  const read = async (uri: string) => {
    const { contents } = resultOf(await peer.request("resources/read", { uri }));
    assert.ok(Array.isArray(contents) && contents.length === 1 && isRecord(contents[0]));
    return contents[0];
  };
  assert.deepEqual(await read("orders://ORD-1"), {
    uri: "orders://ORD-1",
    mimeType: "text/plain",
    text: "the concrete ORD-1",
  });
  const templated = await read("orders://ORD-7");
  assert.equal(templated.uri, "orders://ORD-7");
  assert.equal(templated.mimeType, "application/json");
  assert.deepEqual(JSON.parse(String(templated.text)), {
    variables: { id: "ORD-7" },
    uri: "orders://ORD-7",
  });
  assert.equal((await read("files://docs/read%20me.md")).text, "file at docs/read me.md");
});

Deno.test("resources/read through a template is access-checked on the concrete URI", async () => {
  await using peer = await connectPeer(orderServer());
  const denied = await peer.request("resources/read", { uri: "orders://ORD-2" });
  assert.equal(errorOf(denied).code, ErrorCode.AccessDenied);
  assert.doesNotMatch(JSON.stringify(denied), /variables/);
  resultOf(await peer.request("resources/read", { uri: "orders://ORD-3" }));
  for (const uri of ["nothing://here", "orders://", "orders://a/b", "files://"]) {
    const reply = await peer.request("resources/read", { uri });
    assert.equal(errorOf(reply).code, ErrorCode.MethodNotFound, uri);
  }
});

// --- subscriptions ---

Deno.test("notifyResourceUpdated() reaches subscribed sessions that may see the resource, only", async () => {
  const revoked = new Set<string | undefined>();
  const revocable: Guardrail = {
    name: "revocable",
    stage: "custom",
    run: (call, next) => next(call),
    visible: (item, principal) => !(item.name === "orders://ORD-9" && revoked.has(principal)),
  };
  const server = orderServer({
    guardrails: [
      ...createGuardrails({
        access: {
          resources: { deny: ["orders://ORD-2"] },
          principals: { guest: { resources: { deny: ["orders://ORD-1"] } } },
        },
      }),
      revocable,
    ],
  });
  await using alice = await connectPeer(server, { principal: "alice" });
  await using bob = await connectPeer(server, { principal: "bob" });
  await using guest = await connectPeer(server, { principal: "guest" });
  assert.deepEqual(alice.initialized.capabilities, {
    logging: {},
    resources: { subscribe: true, listChanged: true },
    completions: {},
  });
  const subscribe = (peer: Peer, uri: string) => peer.request("resources/subscribe", { uri });

  assert.deepEqual(resultOf(await subscribe(alice, "orders://ORD-1")), {});
  assert.deepEqual(resultOf(await subscribe(alice, "orders://ORD-9")), {});
  assert.deepEqual(resultOf(await subscribe(bob, "orders://ORD-9")), {});
  assert.equal(errorOf(await subscribe(guest, "orders://ORD-1")).code, ErrorCode.AccessDenied);
  assert.equal(errorOf(await subscribe(guest, "nothing://x")).code, ErrorCode.MethodNotFound);
  assert.equal(errorOf(await subscribe(guest, "orders://ORD-2")).code, ErrorCode.AccessDenied);
  assert.equal(
    errorOf(await guest.request("resources/subscribe", {})).code,
    ErrorCode.InvalidParams,
  );

  const updates = async (peer: Peer) => {
    await peer.settle();
    return peer.drain("notifications/resources/updated").map((message) => message.params);
  };
  server.notifyResourceUpdated("orders://ORD-1");
  assert.deepEqual(await updates(alice), [{ uri: "orders://ORD-1" }]);
  assert.deepEqual(await updates(bob), []);
  assert.deepEqual(await updates(guest), []);

  revoked.add("bob");
  server.notifyResourceUpdated("orders://ORD-9");
  assert.deepEqual(await updates(alice), [{ uri: "orders://ORD-9" }]);
  assert.deepEqual(await updates(bob), []);

  assert.deepEqual(
    resultOf(await alice.request("resources/unsubscribe", { uri: "orders://ORD-1" })),
    {},
  );
  server.notifyResourceUpdated("orders://ORD-1");
  assert.deepEqual(await updates(alice), []);
});

// --- completion ---

function completionServer(): Server {
  return orderServer({
    prompts: [{
      name: "summarize",
      arguments: [
        {
          name: "order_id",
          complete: (value, { arguments: given }) =>
            Array.from({ length: 150 }, (_, i) => `${given.prefix ?? ""}${value}${i}`),
        },
        { name: "tone" },
      ],
      get: () => "Summarize",
    }],
    guardrails: [],
  });
}

Deno.test("completion/complete completes prompt arguments and template variables, capped at 100", async () => {
  await using peer = await connectPeer(completionServer());
  assert.deepEqual(
    isRecord(peer.initialized.capabilities) && peer.initialized.capabilities.completions,
    {},
  );
  const complete = async (ref: Message, name: string, value: string, context?: Message) => {
    const params: Message = { ref, argument: { name, value } };
    if (context !== undefined) params.context = context;
    const { completion } = resultOf(await peer.request("completion/complete", params));
    assert.ok(isRecord(completion));
    return completion;
  };
  const template = { type: "ref/resource", uri: "orders://{id}" };
  assert.deepEqual(await complete(template, "id", "ORD-1"), {
    values: ["ORD-1", "ORD-10"],
    total: 2,
    hasMore: false,
  });
  assert.deepEqual(await complete(template, "id", "X"), { values: [], total: 0, hasMore: false });

  const prompt = { type: "ref/prompt", name: "summarize" };
  const many = await complete(prompt, "order_id", "A", { arguments: { prefix: "p-" } });
  assert.ok(Array.isArray(many.values));
  assert.equal(many.values.length, 100);
  assert.equal(many.values[0], "p-A0");
  assert.equal(many.values[99], "p-A99");
  assert.equal(many.total, 150);
  assert.equal(many.hasMore, true);
  // An argument or variable without a completer has nothing to offer.
  assert.deepEqual(await complete(prompt, "tone", "f"), { values: [], total: 0, hasMore: false });
  assert.deepEqual(await complete({ type: "ref/resource", uri: "files://{+path}" }, "path", "a"), {
    values: [],
    total: 0,
    hasMore: false,
  });
});

Deno.test("completion/complete refuses unknown refs with -32601 and bad params with -32602", async () => {
  await using peer = await connectPeer(completionServer());
  const argument = { name: "order_id", value: "" };
  const cases: [Message, number][] = [
    [{ ref: { type: "ref/prompt", name: "nope" }, argument }, ErrorCode.MethodNotFound],
    [{ ref: { type: "ref/resource", uri: "nope://{x}" }, argument }, ErrorCode.MethodNotFound],
    [{ argument }, ErrorCode.InvalidParams],
    [{ ref: { type: "ref/tool", name: "x" }, argument }, ErrorCode.InvalidParams],
    [{ ref: { type: "ref/prompt" }, argument }, ErrorCode.InvalidParams],
    [{ ref: { type: "ref/prompt", name: "summarize" } }, ErrorCode.InvalidParams],
    [
      { ref: { type: "ref/prompt", name: "summarize" }, argument: { name: "order_id" } },
      ErrorCode.InvalidParams,
    ],
    [
      { ref: { type: "ref/prompt", name: "summarize" }, argument: { name: 1, value: "" } },
      ErrorCode.InvalidParams,
    ],
  ];
  for (const [params, code] of cases) {
    assert.equal(
      errorOf(await peer.request("completion/complete", params)).code,
      code,
      JSON.stringify(params),
    );
  }
});

Deno.test("the completions capability appears only when some completer exists", async () => {
  const plain = testServer({
    prompts: [{ name: "p", arguments: [{ name: "a" }], get: () => "p" }],
    resourceTemplates: [{ uriTemplate: "x://{id}", name: "x", read: () => "x" }],
  });
  await using peer = await connectPeer(plain);
  assert.ok(isRecord(peer.initialized.capabilities));
  assert.equal("completions" in peer.initialized.capabilities, false);
  const withPrompt = testServer({
    prompts: [{ name: "p", arguments: [{ name: "a", complete: () => [] }], get: () => "p" }],
  });
  await using other = await connectPeer(withPrompt);
  assert.deepEqual(
    isRecord(other.initialized.capabilities) && other.initialized.capabilities.completions,
    {},
  );
});

// --- pagination ---

Deno.test("with a page size, every list pages through nextCursor, each item once", async () => {
  const tools = ["t1", "t2", "t3", "t4", "t5"].map((name) =>
    defineTool({ name, description: name, inputSchema: EMPTY, handler: () => name })
  );
  const server = testServer({
    pageSize: 2,
    tools,
    resources: ["a", "b", "c"].map((n) => ({ uri: `x://${n}`, name: n, read: () => n })),
    resourceTemplates: ["a", "b", "c"].map((n) => ({
      uriTemplate: `${n}://{id}`,
      name: n,
      read: () => n,
    })),
    prompts: ["a", "b", "c"].map((name) => ({ name, get: () => name })),
  });
  await using peer = await connectPeer(server);
  const walk = async (method: string, list: string, key: string) => {
    const seen: unknown[] = [];
    const sizes: number[] = [];
    let cursor: unknown;
    do {
      const result = resultOf(
        await peer.request(method, cursor === undefined ? {} : { cursor }),
      );
      const page = result[list];
      assert.ok(Array.isArray(page));
      sizes.push(page.length);
      for (const item of page) seen.push(isRecord(item) ? item[key] : item);
      cursor = result.nextCursor;
      if (cursor !== undefined) assert.equal(typeof cursor, "string");
    } while (cursor !== undefined && sizes.length < 10);
    return { seen, sizes };
  };
  assert.deepEqual(await walk("tools/list", "tools", "name"), {
    seen: ["t1", "t2", "t3", "t4", "t5"],
    sizes: [2, 2, 1],
  });
  assert.deepEqual((await walk("resources/list", "resources", "uri")).seen, [
    "x://a",
    "x://b",
    "x://c",
  ]);
  assert.deepEqual(
    (await walk("resources/templates/list", "resourceTemplates", "uriTemplate")).seen,
    ["a://{id}", "b://{id}", "c://{id}"],
  );
  assert.deepEqual(await walk("prompts/list", "prompts", "name"), {
    seen: ["a", "b", "c"],
    sizes: [2, 1],
  });
});

Deno.test("an invalid, forged or other list's cursor is -32602", async () => {
  const server = testServer({
    pageSize: 2,
    tools: ["t1", "t2", "t3"].map((name) =>
      defineTool({ name, description: name, inputSchema: EMPTY, handler: () => name })
    ),
    prompts: ["a", "b", "c"].map((name) => ({ name, get: () => name })),
  });
  await using peer = await connectPeer(server);
  const toolsCursor = resultOf(await peer.request("tools/list")).nextCursor;
  const promptsCursor = resultOf(await peer.request("prompts/list")).nextCursor;
  assert.equal(typeof toolsCursor, "string");
  const forge = (value: unknown) => btoa(JSON.stringify(value));
  const cases: [string, unknown][] = [
    ["tools/list", "not a cursor!"],
    ["tools/list", ""],
    ["tools/list", 2],
    ["tools/list", null],
    ["tools/list", forge(["tools", -2])],
    ["tools/list", forge(["tools", 1.5])],
    ["tools/list", forge(["tools"])],
    ["tools/list", forge({ list: "tools", offset: 2 })],
    ["tools/list", "x".repeat(500)],
    ["tools/list", promptsCursor],
    ["prompts/list", toolsCursor],
    ["resources/list", toolsCursor],
    ["resources/templates/list", toolsCursor],
  ];
  for (const [method, cursor] of cases) {
    const reply = await peer.request(method, { cursor });
    assert.equal(
      errorOf(reply).code,
      ErrorCode.InvalidParams,
      `${method} ${JSON.stringify(cursor)}`,
    );
  }
  const second = resultOf(await peer.request("tools/list", { cursor: toolsCursor }));
  assert.deepEqual(second.tools, [{ name: "t3", description: "t3", inputSchema: EMPTY }]);
});

// --- tool metadata ---

Deno.test("tools/list passes a tool's title, annotations and _meta through", async () => {
  const annotations = {
    title: "Annotated",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  };
  const _meta = { "example.com/owner": "desk", nested: { ok: [1, 2] } };
  const server = testServer({
    tools: [defineTool({
      name: "annotated",
      title: "An annotated tool",
      description: "Has every hint",
      inputSchema: EMPTY,
      annotations,
      _meta,
      handler: () => "ok",
    })],
  });
  await using peer = await connectPeer(server);
  assert.deepEqual(resultOf(await peer.request("tools/list")).tools, [{
    name: "annotated",
    title: "An annotated tool",
    description: "Has every hint",
    inputSchema: EMPTY,
    annotations,
    _meta,
  }]);
});
