/**
 * Requests the server makes of the client (issue 5): sampling, elicitation
 * and roots through a live in-memory session, with a raw JSON-RPC client that
 * answers them when and how each test says — late, out of order, with errors,
 * or not at all.
 */

import assert from "node:assert/strict";
import {
  ClientRequestError,
  type ClientSession,
  defineTool,
  type ElicitSchema,
  MissingCapabilityError,
  RpcError,
  type SamplingRequest,
} from "../../mod.ts";
import { createGuardrails } from "../../guardrails.ts";
import { captureLog, isRecord, request, resultOf } from "../_helpers/helpers.ts";
import { connectPeer, EMPTY, testServer, textOf } from "../_helpers/peer.ts";
import { withClientRequests } from "../../src/eras/legacy/ask_client.ts";

/** What a handler's rejection looked like, as text the test can compare. */
function describe(error: unknown): string {
  if (error instanceof MissingCapabilityError) return `MissingCapabilityError(${error.capability})`;
  if (error instanceof ClientRequestError) {
    return `ClientRequestError(${error.code}): ${error.message}`;
  }
  if (error instanceof RpcError) return `RpcError(${error.code}): ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `thrown ${String(error)}`;
}

function question(text: string): SamplingRequest {
  return { messages: [{ role: "user", content: { type: "text", text } }], maxTokens: 50 };
}

/** A tool `ask` that samples its `text` and returns the answer, or what went wrong. */
const askTool = defineTool({
  name: "ask",
  description: "Asks the client's model",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" }, timeoutMs: { type: "integer" } },
    required: ["text"],
  },
  handler: async ({ text, timeoutMs }, ctx) => {
    try {
      const answer = await ctx.sample(
        question(text),
        timeoutMs === undefined ? {} : { timeoutMs },
      );
      return `answer: ${JSON.stringify(answer)}`;
    } catch (error) {
      return `failed: ${describe(error)}`;
    }
  },
});

const SAMPLING = { sampling: {} };

// --- sampling ---

Deno.test("ctx.sample() sends sampling/createMessage and returns the client's result", async () => {
  const asked: SamplingRequest = {
    messages: [
      { role: "user", content: { type: "text", text: "What is 6 x 7?" } },
      { role: "assistant", content: { type: "text", text: "Let me think." } },
    ],
    maxTokens: 100,
    systemPrompt: "Be brief",
    includeContext: "thisServer",
    temperature: 0.2,
    stopSequences: ["\n\n"],
    modelPreferences: { hints: [{ name: "small" }], speedPriority: 1 },
    metadata: { ticket: 7 },
  };
  const server = testServer({
    tools: [defineTool({
      name: "multiply",
      description: "Asks the model",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => JSON.stringify(await ctx.sample(asked)),
    })],
  });
  await using peer = await connectPeer(server, { capabilities: SAMPLING });
  const reply = peer.call("multiply");
  const sampling = await peer.next("sampling/createMessage");
  assert.equal(typeof sampling.id, "number");
  assert.deepEqual(sampling, {
    jsonrpc: "2.0",
    id: sampling.id,
    method: "sampling/createMessage",
    params: asked,
  });
  const answer = {
    role: "assistant",
    content: { type: "text", text: "42" },
    model: "test-model-1",
    stopReason: "endTurn",
  };
  await peer.answer(sampling, answer);
  assert.deepEqual(JSON.parse(textOf(await reply)), answer);
});

Deno.test("each client request needs its capability: MissingCapabilityError and nothing sent", async () => {
  const server = testServer({
    tools: [defineTool({
      name: "needs",
      description: "Makes one request of the client",
      inputSchema: { type: "object", properties: { what: { type: "string" } }, required: ["what"] },
      handler: async ({ what }, ctx) => {
        const form: ElicitSchema = { type: "object", properties: { ok: { type: "boolean" } } };
        try {
          if (what === "sampling") await ctx.sample(question("hi"));
          else if (what === "elicitation") await ctx.elicit("OK?", form);
          else await ctx.roots();
          return "sent";
        } catch (error) {
          return describe(error);
        }
      },
    })],
  });
  // A capability must be an object: `true` or null declares nothing.
  for (const value of [undefined, true, null]) {
    const capabilities = value === undefined
      ? {}
      : { sampling: value, elicitation: value, roots: value };
    await using peer = await connectPeer(server, { capabilities });
    const requests: [string, string][] = [
      ["sampling", "sampling/createMessage"],
      ["elicitation", "elicitation/create"],
      ["roots", "roots/list"],
    ];
    for (const [what, method] of requests) {
      assert.equal(textOf(await peer.call("needs", { what })), `MissingCapabilityError(${what})`);
      assert.deepEqual(peer.drain(method), [], method);
    }
  }
});

Deno.test("a client's error reply rejects ctx.sample() with a ClientRequestError", async () => {
  const server = testServer({ tools: [askTool] });
  await using peer = await connectPeer(server, { capabilities: SAMPLING });
  const reply = peer.call("ask", { text: "hi" });
  const sampling = await peer.next("sampling/createMessage");
  await peer.refuse(sampling, { code: -1, message: "User rejected sampling request" });
  assert.equal(
    textOf(await reply),
    "failed: ClientRequestError(-1): The client refused sampling/createMessage: " +
      "User rejected sampling request",
  );
});

Deno.test({
  name: "a client's refusal that the tool does not catch fails the call, not the protocol",
  fn: async () => {
    const server = testServer({
      tools: [defineTool({
        name: "careless",
        description: "Samples without catching",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => JSON.stringify(await ctx.sample(question("hi"))),
      })],
    });
    await using peer = await connectPeer(server, { capabilities: SAMPLING });
    const reply = peer.call("careless");
    const sampling = await peer.next("sampling/createMessage");
    await peer.refuse(sampling, { code: -32601, message: "Method not found" });
    const result = resultOf(await reply);
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /refused sampling\/createMessage/);
  },
});

Deno.test("a malformed sampling result rejects ctx.sample()", async () => {
  const server = testServer({ tools: [askTool] });
  await using peer = await connectPeer(server, { capabilities: SAMPLING });
  const text = { type: "text", text: "x" };
  const malformed: unknown[] = [
    {},
    { role: "assistant", content: text },
    { role: "robot", content: text, model: "m" },
    { role: "assistant", content: "x", model: "m" },
    { role: "assistant", content: { type: "resource_link", uri: "x://y" }, model: "m" },
    { role: "assistant", content: text, model: 7 },
  ];
  for (const result of malformed) {
    const reply = peer.call("ask", { text: "hi" });
    await peer.answer(await peer.next("sampling/createMessage"), result);
    assert.equal(
      textOf(await reply),
      "failed: Error: The client answered sampling/createMessage with a malformed result",
      JSON.stringify(result),
    );
  }
});

Deno.test("ctx.sample() times out and tells the client with notifications/cancelled", async () => {
  const cases: [server: number, call: number | undefined, expected: number][] = [
    [20, undefined, 20],
    [60_000, 15, 15],
  ];
  for (const [serverTimeout, callTimeout, expected] of cases) {
    const server = testServer({ tools: [askTool], requestTimeoutMs: serverTimeout });
    await using peer = await connectPeer(server, { capabilities: SAMPLING });
    const args = callTimeout === undefined
      ? { text: "hi" }
      : { text: "hi", timeoutMs: callTimeout };
    const reply = peer.call("ask", args);
    const sampling = await peer.next("sampling/createMessage");
    assert.deepEqual((await peer.next("notifications/cancelled")).params, {
      requestId: sampling.id,
      reason: "timeout",
    });
    assert.equal(
      textOf(await reply),
      `failed: Error: The client did not answer sampling/createMessage within ${expected} ms`,
    );
    // A reply after the timeout is ignored.
    await peer.answer(sampling, { role: "assistant", content: { type: "text", text: "late" } });
    await peer.settle();
  }
});

Deno.test("cancelling a tools/call cancels the sampling request it awaits", async () => {
  const finished = Promise.withResolvers<string>();
  const server = testServer({
    tools: [defineTool({
      name: "ponder",
      description: "Samples until cancelled",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        try {
          return JSON.stringify(await ctx.sample(question("ponder")));
        } catch (error) {
          finished.resolve(describe(error));
          throw error;
        }
      },
    })],
  });
  await using peer = await connectPeer(server, { capabilities: SAMPLING });
  await peer.send(request("call-1", "tools/call", { name: "ponder", arguments: {} }));
  const sampling = await peer.next("sampling/createMessage");
  await peer.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "call-1", reason: "User pressed stop" },
  });
  assert.deepEqual((await peer.next("notifications/cancelled")).params, {
    requestId: sampling.id,
    reason: "The request was cancelled",
  });
  assert.equal(await finished.promise, "Error: User pressed stop");
  // The cancelled call gets no reply, and a late answer to its sampling request is ignored.
  await peer.answer(sampling, { role: "assistant", content: { type: "text", text: "late" } });
  await peer.settle();
  await assert.rejects(
    peer.take((message) => message.id === "call-1", "a reply to call-1", 0),
    /Timed out/,
  );
});

Deno.test("a handler's own abort signal cancels its request to the client", async () => {
  // A process's first ask waits for the asks to load (an abort meanwhile sends nothing);
  // once loaded, an ask is on the wire before ctx.sample() returns, as here.
  await withClientRequests(() => Promise.resolve());
  const server = testServer({
    tools: [defineTool({
      name: "impatient",
      description: "Gives up on the client at once",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        const controller = new AbortController();
        const asking = ctx.sample(question("hi"), { signal: controller.signal });
        controller.abort(new Error("Changed my mind"));
        try {
          await asking;
          return "answered";
        } catch (error) {
          return describe(error);
        }
      },
    })],
  });
  await using peer = await connectPeer(server, { capabilities: SAMPLING });
  const reply = peer.call("impatient");
  const sampling = await peer.next("sampling/createMessage");
  assert.deepEqual((await peer.next("notifications/cancelled")).params, {
    requestId: sampling.id,
    reason: "The request was cancelled",
  });
  assert.equal(textOf(await reply), "Error: Changed my mind");
});

Deno.test("closing the session fails a handler's pending request to the client", async () => {
  const finished = Promise.withResolvers<string>();
  const server = testServer({
    shutdownGraceMs: 10,
    tools: [defineTool({
      name: "stranded",
      description: "Samples while the client leaves",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        try {
          return JSON.stringify(await ctx.sample(question("hi")));
        } catch (error) {
          finished.resolve(describe(error));
          throw error;
        }
      },
    })],
  });
  const peer = await connectPeer(server, { capabilities: SAMPLING });
  await peer.send(request(9, "tools/call", { name: "stranded", arguments: {} }));
  await peer.next("sampling/createMessage");
  await peer.close();
  assert.equal(await finished.promise, "Error: The session is shutting down");
});

Deno.test("concurrent sampling requests answered in reverse order each reach their own call", async () => {
  const server = testServer({ tools: [askTool] });
  await using peer = await connectPeer(server, { capabilities: SAMPLING });
  const first = peer.call("ask", { text: "first" });
  const second = peer.call("ask", { text: "second" });
  const requests = [
    await peer.next("sampling/createMessage"),
    await peer.next("sampling/createMessage"),
  ];
  assert.notEqual(requests[0]?.id, requests[1]?.id);
  for (const sampling of requests.reverse()) {
    const params = sampling.params;
    assert.ok(isRecord(params) && Array.isArray(params.messages));
    const [message] = params.messages;
    assert.ok(isRecord(message) && isRecord(message.content));
    await peer.answer(sampling, {
      role: "assistant",
      content: { type: "text", text: `re: ${String(message.content.text)}` },
      model: "m",
    });
  }
  const answer = (text: string) =>
    `answer: ${JSON.stringify({ role: "assistant", content: { type: "text", text }, model: "m" })}`;
  assert.equal(textOf(await first), answer("re: first"));
  assert.equal(textOf(await second), answer("re: second"));
});

Deno.test("sampling and elicitation requests pass through the redactor", async () => {
  const token = `ghp_${"Zz09".repeat(9)}`;
  const server = testServer({
    guardrails: createGuardrails({ redact: true }),
    tools: [defineTool({
      name: "leak",
      description: "Puts a secret in its requests",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        await ctx.sample(question(`use ${token}`)).catch(() => {});
        await ctx.elicit(`password: hunter2`, { type: "object", properties: {} }).catch(() => {});
        return "done";
      },
    })],
  });
  await using peer = await connectPeer(server, {
    capabilities: { sampling: {}, elicitation: {} },
  });
  const reply = peer.call("leak");
  const sampling = await peer.next("sampling/createMessage");
  await peer.refuse(sampling, { code: -1, message: "no" });
  const elicitation = await peer.next("elicitation/create");
  await peer.answer(elicitation, { action: "decline" });
  assert.equal(textOf(await reply), "done");
  assert.doesNotMatch(JSON.stringify(sampling), /ghp_/);
  assert.match(JSON.stringify(sampling), /use \[REDACTED\]/);
  assert.doesNotMatch(JSON.stringify(elicitation), /hunter2/);
});

Deno.test({
  name: "a sampling request's systemPrompt passes through the redactor",
  fn: async () => {
    const server = testServer({
      guardrails: createGuardrails({ redact: true }),
      tools: [defineTool({
        name: "prompted",
        description: "Puts a secret in the system prompt",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          await ctx.sample({ ...question("hi"), systemPrompt: "password: hunter2" }).catch(
            () => {},
          );
          return "done";
        },
      })],
    });
    await using peer = await connectPeer(server, { capabilities: SAMPLING });
    const reply = peer.call("prompted");
    const sampling = await peer.next("sampling/createMessage");
    await peer.refuse(sampling, { code: -1, message: "no" });
    assert.equal(textOf(await reply), "done");
    assert.doesNotMatch(JSON.stringify(sampling), /hunter2/);
  },
});

// --- elicitation ---

const FORM = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", minLength: 1 },
    age: { type: "integer", minimum: 0 },
    plan: { type: "string", enum: ["free", "pro"] },
    subscribe: { type: "boolean", default: false },
  },
  required: ["name", "plan"],
} as const;

const signUpTool = defineTool({
  name: "sign_up",
  description: "Asks the user for details",
  inputSchema: EMPTY,
  handler: async (_args, ctx) => {
    try {
      const answer = await ctx.elicit("Please sign up", FORM);
      if (answer.action !== "accept") return answer.action;
      // Typed from the form: name is a string, age a number or undefined.
      const { name, age, plan } = answer.content;
      return `accepted ${name.toUpperCase()} ${age?.toFixed(0) ?? "-"} ${plan}`;
    } catch (error) {
      return `failed: ${describe(error)}`;
    }
  },
});

Deno.test("ctx.elicit() sends elicitation/create and returns accepted content, typed", async () => {
  const server = testServer({ tools: [signUpTool] });
  await using peer = await connectPeer(server, { capabilities: { elicitation: {} } });
  const reply = peer.call("sign_up");
  const elicitation = await peer.next("elicitation/create");
  assert.deepEqual(elicitation.params, { message: "Please sign up", requestedSchema: FORM });
  await peer.answer(elicitation, {
    action: "accept",
    content: { name: "ada", age: 36, plan: "pro" },
  });
  assert.equal(textOf(await reply), "accepted ADA 36 pro");
});

// Fails against 577657d: elicit() compiled the form as given, and the schema compiler
// refuses `enumNames`, so the handler got a TypeError after the user had answered.
Deno.test("ctx.elicit() accepts an answer to a form whose enum field has enumNames", async () => {
  const server = testServer({
    tools: [defineTool({
      name: "choose",
      description: "Asks for a plan",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit("Plan?", {
          type: "object",
          properties: {
            plan: { type: "string", enum: ["free", "pro"], enumNames: ["Free", "Pro"] },
          },
          required: ["plan"],
        });
        return answer.action === "accept" ? answer.content.plan : answer.action;
      },
    })],
  });
  await using peer = await connectPeer(server, { capabilities: { elicitation: {} } });
  const reply = peer.call("choose");
  await peer.answer(await peer.next("elicitation/create"), {
    action: "accept",
    content: { plan: "pro" },
  });
  assert.equal(textOf(await reply), "pro");
});

Deno.test("ctx.elicit() returns decline and cancel, and refuses answers that break the form", async () => {
  const server = testServer({ tools: [signUpTool] });
  await using peer = await connectPeer(server, { capabilities: { elicitation: {} } });
  const cases: [unknown, RegExp][] = [
    [{ action: "decline" }, /^decline$/],
    [{ action: "cancel" }, /^cancel$/],
    [{ action: "accept", content: { name: "ada" } }, /does not match the form/],
    [{ action: "accept", content: { name: "ada", plan: "gold" } }, /does not match the form/],
    [{ action: "accept", content: { name: "ada", plan: "pro", age: 1.5 } }, /match the form/],
    [{ action: "accept", content: { name: "", plan: "pro" } }, /does not match the form/],
    [{ action: "accept" }, /does not match the form/],
    [{ action: "accept", content: "ada" }, /does not match the form/],
    [{ action: "maybe" }, /unknown action/],
    [{}, /unknown action/],
  ];
  for (const [answer, expected] of cases) {
    const reply = peer.call("sign_up");
    await peer.answer(await peer.next("elicitation/create"), answer);
    assert.match(textOf(await reply), expected, JSON.stringify(answer));
  }
});

Deno.test("ctx.elicit() refuses a form that is not flat with TypeError, before sending", async () => {
  const server = testServer({
    tools: [defineTool({
      name: "bad_form",
      description: "Asks with a nested form",
      inputSchema: { type: "object", properties: { form: { type: "object" } } },
      handler: async ({ form }, ctx) => {
        try {
          // @ts-expect-error The form type itself refuses what is not a flat object of primitives.
          await ctx.elicit("Address?", form);
          return "sent";
        } catch (error) {
          return describe(error);
        }
      },
    })],
  });
  await using peer = await connectPeer(server, { capabilities: { elicitation: {} } });
  const forms = [
    { type: "object", properties: { address: { type: "object", properties: {} } } },
    { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
    { type: "object", properties: { n: { type: "number", pattern: "x" } } },
    { type: "object", properties: { n: { type: "number", enum: [1, 2] } } },
    { type: "object", properties: { a: { type: "string" } }, required: ["b"] },
    { type: "array" },
  ];
  for (const form of forms) {
    assert.match(
      textOf(await peer.call("bad_form", { form })),
      /^TypeError: Invalid elicitation schema: /,
      JSON.stringify(form),
    );
  }
  await peer.settle();
  assert.deepEqual(peer.drain("elicitation/create"), []);
});

// --- roots ---

Deno.test("ctx.roots() sends roots/list and returns the client's roots", async () => {
  const server = testServer({
    tools: [defineTool({
      name: "where",
      description: "Lists roots",
      inputSchema: EMPTY,
      handler: async (_args, ctx) => JSON.stringify(await ctx.roots()),
    })],
  });
  await using peer = await connectPeer(server, { capabilities: { roots: { listChanged: true } } });
  const reply = peer.call("where");
  const list = await peer.next("roots/list");
  assert.deepEqual(list.params, {});
  await peer.answer(list, {
    roots: [{ uri: "file:///work", name: "Work" }, { uri: "file:///tmp" }, { name: "no uri" }],
  });
  assert.deepEqual(JSON.parse(textOf(await reply)), [
    { uri: "file:///work", name: "Work" },
    { uri: "file:///tmp" },
  ]);
});

Deno.test("notifications/roots/list_changed reaches onRootsListChanged listeners", async () => {
  const { lines, log } = captureLog();
  const server = testServer({ log, tools: [askTool] });
  const seen: ClientSession[] = [];
  const fetched = Promise.withResolvers<unknown>();
  const stop = server.onRootsListChanged((session) => {
    seen.push(session);
    session.roots().then(fetched.resolve, fetched.reject);
  });
  server.onRootsListChanged(() => {
    throw new Error("A faulty listener");
  });
  await using peer = await connectPeer(server, {
    principal: "alice",
    capabilities: { roots: { listChanged: true } },
  });
  const changed = { jsonrpc: "2.0", method: "notifications/roots/list_changed" };
  await peer.send(changed);
  const list = await peer.next("roots/list");
  await peer.answer(list, { roots: [{ uri: "file:///new" }] });
  assert.deepEqual(await fetched.promise, [{ uri: "file:///new" }]);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.principal, "alice");
  assert.equal(seen[0]?.client.info?.name, "raw-client");
  assert.match(lines.join("\n"), /a roots listener failed: Error: A faulty listener/);

  stop();
  await peer.send(changed);
  await peer.settle();
  assert.equal(seen.length, 1);
  assert.deepEqual(peer.drain("roots/list"), []);
});

Deno.test("a roots listener's session.roots() needs the roots capability", async () => {
  const server = testServer();
  const outcome = Promise.withResolvers<string>();
  server.onRootsListChanged((session) => {
    session.roots().then(() => outcome.resolve("listed"), (e) => outcome.resolve(describe(e)));
  });
  await using peer = await connectPeer(server);
  await peer.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  assert.equal(await outcome.promise, "MissingCapabilityError(roots)");
  await peer.settle();
  assert.deepEqual(peer.drain("roots/list"), []);
});
