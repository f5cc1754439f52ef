/**
 * Multi round-trip requests (revision 2026-07-28): a handler's asks end the
 * call with an `InputRequiredResult`, the retry brings the answers, and the
 * same handler sends real requests in a legacy session.
 */

import assert from "node:assert/strict";
import { definePrompt, defineTool, type RequestContext, type Server } from "../../../mod.ts";
import { captureLog, errorOf, isRecord, modernRequest, resultOf } from "../../_helpers/helpers.ts";
import {
  connectPeer,
  EMPTY,
  type Message,
  type Peer,
  testServer,
  textOf,
} from "../../_helpers/peer.ts";

const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;

const ALL = { elicitation: {}, sampling: {}, roots: {} };

function sampling(text: string) {
  return {
    messages: [{ role: "user" as const, content: { type: "text" as const, text } }],
    maxTokens: 5,
  };
}

/** Asks for a name, a sample and the roots at once; reports all three. */
async function askAll(ctx: RequestContext): Promise<string> {
  const [name, sample, roots] = await Promise.all([
    ctx.elicit("Name?", NAME_FORM),
    ctx.sample(sampling("Pick a colour")),
    ctx.roots(),
  ]);
  const who = name.action === "accept" ? name.content.name : name.action;
  const colour = sample.content.type === "text" ? sample.content.text : "?";
  return `${who}/${colour}/${roots.map((root) => root.uri).join(",")}`;
}

/** Counts how often each handler ran, to show retries re-run it. */
function mrtrServer(
  extra: Parameters<typeof testServer>[0] = {},
): { server: Server; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const ran = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1);
  const server = testServer({
    tools: [
      defineTool({
        name: "all_at_once",
        description: "Elicits, samples and lists roots in parallel",
        inputSchema: EMPTY,
        handler: (_args, ctx) => {
          ran("all_at_once");
          return askAll(ctx);
        },
      }),
      defineTool({
        name: "one_by_one",
        description: "Asks three questions one after the other",
        inputSchema: { type: "object", properties: { n: { type: "integer" } } },
        handler: async ({ n }, ctx) => {
          ran("one_by_one");
          const answers: string[] = [];
          for (let i = 0; i < (n ?? 3); i++) {
            const answer = await ctx.elicit(`Question ${i}?`, NAME_FORM);
            answers.push(answer.action === "accept" ? answer.content.name : answer.action);
          }
          return answers.join(",");
        },
      }),
      defineTool({
        name: "keyed",
        description: "Asks under a key of its own",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Login?", NAME_FORM, { inputKey: "github_login" });
          return answer.action === "accept" ? answer.content.name : answer.action;
        },
      }),
      defineTool({
        name: "same_key",
        description: "Asks two questions under one key (a handler bug)",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          const [first, second] = await Promise.all([
            ctx.elicit("First?", NAME_FORM, { inputKey: "k" }),
            ctx.elicit("Second?", NAME_FORM, { inputKey: "k" }),
          ]);
          return `${first.action}/${second.action}`;
        },
      }),
      defineTool({
        name: "by_url",
        description: "Sends the user to a URL",
        inputSchema: EMPTY,
        handler: async (_args, ctx) =>
          (await ctx.elicitUrl("Sign in", "https://example.test/in")).action,
      }),
      defineTool({
        name: "falls_back",
        description: "Samples if it can, else says so",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          try {
            await ctx.sample(sampling("hi"));
            return "sampled";
          } catch (error) {
            if (error instanceof Error && error.name === "MissingCapabilityError") {
              return "no sampling";
            }
            throw error;
          }
        },
      }),
      defineTool({
        name: "fake_input_required",
        description: "Returns a result that claims to need input",
        inputSchema: EMPTY,
        handler: () => ({ content: [{ type: "text", text: "x" }], resultType: "input_required" }),
      }),
    ],
    resources: [{
      uri: "test://roots",
      name: "roots",
      read: async (ctx) => (await ctx.roots()).map((root) => root.uri).join(","),
    }],
    prompts: [definePrompt({
      name: "named",
      description: "Asks for a name",
      get: async (_args, ctx) => {
        const answer = await ctx.elicit("Name?", NAME_FORM);
        return answer.action === "accept" ? `Hello ${answer.content.name}` : "Hello";
      },
    })],
    ...extra,
  });
  return { server, runs };
}

let nextId = 1;

async function modern(
  peer: Peer,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ALL,
): Promise<Message> {
  const id = nextId++;
  await peer.send(modernRequest(id, method, params, capabilities));
  return peer.take((reply) => reply.id === id && !("method" in reply), `reply ${id}`);
}

/** The input requests of an input_required result, checked for shape. */
function inputRequestsOf(reply: Message): Record<string, Message> {
  const result = resultOf(reply);
  assert.equal(result.resultType, "input_required", JSON.stringify(reply));
  assert.equal(typeof result.requestState, "string");
  assert.ok(isRecord(result.inputRequests));
  for (const value of Object.values(result.inputRequests)) {
    assert.ok(isRecord(value) && typeof value.method === "string" && isRecord(value.params));
  }
  return result.inputRequests as Record<string, Message>;
}

const ELICITED = { action: "accept", content: { name: "Ada" } };
const SAMPLED = { role: "assistant", content: { type: "text", text: "teal" }, model: "m" };
const ROOTS = { roots: [{ uri: "file:///a" }, { uri: "file:///b", name: "b" }] };

Deno.test("elicitation, sampling and roots asked at once come back in one input_required result", async () => {
  const { server, runs } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const first = await modern(peer, "tools/call", { name: "all_at_once" });
  const requests = inputRequestsOf(first);
  assert.deepEqual(
    Object.values(requests).map((r) => r.method).sort(),
    ["elicitation/create", "roots/list", "sampling/createMessage"],
  );
  const answers: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(requests)) {
    answers[key] = value.method === "elicitation/create"
      ? ELICITED
      : value.method === "sampling/createMessage"
      ? SAMPLED
      : ROOTS;
  }
  const done = await modern(peer, "tools/call", {
    name: "all_at_once",
    inputResponses: answers,
    requestState: resultOf(first).requestState,
  });
  assert.equal(resultOf(done).resultType, "complete");
  assert.equal(textOf(done), "Ada/teal/file:///a,file:///b");
  assert.equal(runs.get("all_at_once"), 2);
  // Nothing was sent to the client as a request of its own.
  assert.deepEqual(peer.drain("elicitation/create"), []);
  await peer.close();
  await server.close();
});

Deno.test("sequential asks take one round each; the state carries earlier answers", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  let reply = await modern(peer, "tools/call", { name: "one_by_one", arguments: { n: 3 } });
  const names = ["a", "b", "c"];
  for (let round = 0; round < 3; round++) {
    const requests = inputRequestsOf(reply);
    const keys = Object.keys(requests);
    assert.equal(keys.length, 1, `round ${round}`);
    assert.match(
      String((requests[keys[0] ?? ""]?.params as Message).message),
      new RegExp(`Question ${round}`),
    );
    reply = await modern(peer, "tools/call", {
      name: "one_by_one",
      arguments: { n: 3 },
      // Only this round's answer: the earlier ones travel in the state.
      inputResponses: { [keys[0] ?? ""]: { action: "accept", content: { name: names[round] } } },
      requestState: resultOf(reply).requestState,
    });
  }
  assert.equal(textOf(reply), "a,b,c");
  await peer.close();
  await server.close();
});

Deno.test("a missing answer is asked again; unknown extra answers are ignored", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const first = await modern(peer, "tools/call", { name: "all_at_once" });
  const requests = inputRequestsOf(first);
  const partial: Record<string, unknown> = {
    "not-asked": { anything: true },
    "elicitation-9": ELICITED,
  };
  for (const [key, value] of Object.entries(requests)) {
    if (value.method === "elicitation/create") partial[key] = ELICITED;
    if (value.method === "roots/list") partial[key] = ROOTS;
  }
  const again = await modern(peer, "tools/call", {
    name: "all_at_once",
    inputResponses: partial,
    requestState: resultOf(first).requestState,
  });
  const asked = inputRequestsOf(again);
  assert.deepEqual(Object.values(asked).map((r) => r.method), ["sampling/createMessage"]);
  const [key] = Object.keys(asked);
  const done = await modern(peer, "tools/call", {
    name: "all_at_once",
    inputResponses: { [key ?? ""]: SAMPLED, extra: 1 },
    requestState: resultOf(again).requestState,
  });
  assert.equal(textOf(done), "Ada/teal/file:///a,file:///b");
  await peer.close();
  await server.close();
});

Deno.test("input keys given by the handler are used as they are", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const first = await modern(peer, "tools/call", { name: "keyed" });
  assert.deepEqual(Object.keys(inputRequestsOf(first)), ["github_login"]);
  const done = await modern(peer, "tools/call", {
    name: "keyed",
    inputResponses: { github_login: { action: "accept", content: { name: "octocat" } } },
  });
  assert.equal(textOf(done), "octocat");
  await peer.close();
  await server.close();
});

Deno.test("prompts/get and resources/read ask through input_required too", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const prompt = await modern(peer, "prompts/get", { name: "named" });
  const [promptKey] = Object.keys(inputRequestsOf(prompt));
  const promptDone = resultOf(
    await modern(peer, "prompts/get", {
      name: "named",
      inputResponses: { [promptKey ?? ""]: ELICITED },
      requestState: resultOf(prompt).requestState,
    }),
  );
  assert.equal(promptDone.resultType, "complete");
  assert.match(JSON.stringify(promptDone.messages), /Hello Ada/);

  const read = await modern(peer, "resources/read", { uri: "test://roots" });
  const [readKey] = Object.keys(inputRequestsOf(read));
  const readDone = resultOf(
    await modern(peer, "resources/read", {
      uri: "test://roots",
      inputResponses: { [readKey ?? ""]: ROOTS },
      requestState: resultOf(read).requestState,
    }),
  );
  assert.deepEqual((readDone.contents as Message[])[0]?.text, "file:///a,file:///b");
  await peer.close();
  await server.close();
});

Deno.test("a malformed answer is -32602, whatever is wrong with it", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const first = await modern(peer, "tools/call", { name: "all_at_once" });
  const requests = inputRequestsOf(first);
  const keyOf = (method: string) =>
    Object.entries(requests).find(([, value]) => value.method === method)?.[0] ?? "";
  const bad: [string, unknown][] = [
    [keyOf("elicitation/create"), { action: "maybe" }],
    [keyOf("elicitation/create"), { action: "accept", content: { name: 5 } }],
    [keyOf("elicitation/create"), "accept"],
    [keyOf("elicitation/create"), null],
    [keyOf("sampling/createMessage"), {
      role: "robot",
      content: { type: "text", text: "x" },
      model: "m",
    }],
    [keyOf("sampling/createMessage"), []],
    [keyOf("roots/list"), { roots: "file:///" }],
  ];
  for (const [key, answer] of bad) {
    for (const withState of [true, false]) {
      const params: Record<string, unknown> = {
        name: "all_at_once",
        inputResponses: { [key]: answer },
      };
      if (withState) params.requestState = resultOf(first).requestState;
      const error = errorOf(await modern(peer, "tools/call", params));
      assert.equal(error.code, -32602, `${key}: ${JSON.stringify(answer)}`);
    }
  }
  for (const inputResponses of [[], "answers", 7, null]) {
    const error = errorOf(
      await modern(peer, "tools/call", { name: "all_at_once", inputResponses }),
    );
    assert.equal(error.code, -32602, JSON.stringify(inputResponses));
  }
  await peer.close();
  await server.close();
});

Deno.test("a handler written once sends real requests in a legacy session", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { capabilities: ALL });
  const call = peer.call("all_at_once");
  const pending = await Promise.all([
    peer.next("elicitation/create"),
    peer.next("sampling/createMessage"),
    peer.next("roots/list"),
  ]);
  const [elicit, sample, roots] = pending;
  assert.ok(elicit !== undefined && sample !== undefined && roots !== undefined);
  await peer.answer(roots, ROOTS);
  await peer.answer(sample, SAMPLED);
  await peer.answer(elicit, ELICITED);
  const reply = await call;
  assert.equal(textOf(reply), "Ada/teal/file:///a,file:///b");
  assert.equal(resultOf(reply).resultType, undefined);
  // And the prompt and the resource in the same session.
  const prompt = peer.request("prompts/get", { name: "named" });
  await peer.answer(await peer.next("elicitation/create"), ELICITED);
  assert.match(JSON.stringify(resultOf(await prompt).messages), /Hello Ada/);
  const read = peer.request("resources/read", { uri: "test://roots" });
  await peer.answer(await peer.next("roots/list"), ROOTS);
  assert.equal((resultOf(await read).contents as Message[])[0]?.text, "file:///a,file:///b");
  await peer.close();
  await server.close();
});

Deno.test("maxInputRounds bounds the rounds of one call", async () => {
  const { server } = mrtrServer({ maxInputRounds: 2 });
  const peer = await connectPeer(server, { initialize: false });
  let reply = await modern(peer, "tools/call", { name: "one_by_one", arguments: { n: 5 } });
  for (let round = 1; round <= 2; round++) {
    const [key] = Object.keys(inputRequestsOf(reply));
    reply = await modern(peer, "tools/call", {
      name: "one_by_one",
      arguments: { n: 5 },
      inputResponses: { [key ?? ""]: ELICITED },
      requestState: resultOf(reply).requestState,
    });
  }
  const error = errorOf(reply);
  assert.equal(error.code, -32602);
  assert.match(error.message, /more than 2 times/);
  // Two questions fit in two rounds.
  let ok = await modern(peer, "tools/call", { name: "one_by_one", arguments: { n: 2 } });
  for (let round = 1; round <= 2; round++) {
    const [key] = Object.keys(inputRequestsOf(ok));
    ok = await modern(peer, "tools/call", {
      name: "one_by_one",
      arguments: { n: 2 },
      inputResponses: { [key ?? ""]: ELICITED },
      requestState: resultOf(ok).requestState,
    });
  }
  assert.equal(textOf(ok), "Ada,Ada");
  await peer.close();
  await server.close();
});

Deno.test("a missing capability is -32021 naming every capability the request needed", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["all_at_once", {}, { elicitation: {}, sampling: {}, roots: {} }],
    ["all_at_once", { sampling: {}, roots: {} }, { elicitation: {} }],
    ["all_at_once", { elicitation: {}, roots: {} }, { sampling: {} }],
    ["all_at_once", { elicitation: {}, sampling: {} }, { roots: {} }],
    ["by_url", { elicitation: {} }, { elicitation: { url: {} } }],
    ["by_url", { elicitation: { form: {} } }, { elicitation: { url: {} } }],
    ["keyed", { elicitation: { url: {} } }, { elicitation: { form: {} } }],
  ];
  for (const [tool, declared, required] of cases) {
    const error = errorOf(await modern(peer, "tools/call", { name: tool }, declared));
    assert.equal(error.code, -32021, `${tool} with ${JSON.stringify(declared)}`);
    assert.ok(isRecord(error.data));
    assert.deepEqual(
      error.data.requiredCapabilities,
      required,
      `${tool} with ${JSON.stringify(declared)}`,
    );
  }
  // A handler that catches the missing capability and falls back completes.
  assert.equal(textOf(await modern(peer, "tools/call", { name: "falls_back" }, {})), "no sampling");
  await peer.close();
  await server.close();
});

Deno.test("only tools/call, prompts/get and resources/read can answer input_required", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  // A tool result that claims to need input is not an InputRequiredResult.
  const fake = resultOf(await modern(peer, "tools/call", { name: "fake_input_required" }));
  assert.equal(fake.resultType, "complete");
  // Retry fields on other methods change nothing.
  for (const method of ["server/discover", "tools/list", "resources/list", "prompts/list"]) {
    const result = resultOf(
      await modern(peer, method, { inputResponses: { x: {} }, requestState: "w1.AAAA" }),
    );
    assert.equal(result.resultType, "complete", method);
  }
  await peer.close();
  await server.close();
});

Deno.test("answers too large to seal are -32602, not an internal error", async () => {
  const { lines, log } = captureLog();
  const { server } = mrtrServer({ log });
  const peer = await connectPeer(server, { initialize: false });
  const first = await modern(peer, "tools/call", { name: "one_by_one", arguments: { n: 2 } });
  const [key] = Object.keys(inputRequestsOf(first));
  const huge = { action: "accept", content: { name: "x".repeat(300_000) } };
  const error = errorOf(
    await modern(peer, "tools/call", {
      name: "one_by_one",
      arguments: { n: 2 },
      inputResponses: { [key ?? ""]: huge },
      requestState: resultOf(first).requestState,
    }),
  );
  assert.equal(error.code, -32602);
  assert.match(error.message, /exceed/);
  assert.deepEqual(lines, [], "nothing for the operator: the client sent too much");
  await peer.close();
  await server.close();
});

Deno.test("two asks under one input key are a handler error, never one answer for both", async () => {
  const { server } = mrtrServer();
  const peer = await connectPeer(server, { initialize: false });
  const first = await modern(peer, "tools/call", { name: "same_key" });
  const requests = inputRequestsOf(first);
  assert.deepEqual(Object.keys(requests), ["k"]);
  assert.equal((requests.k?.params as Message).message, "First?");
  const retry = resultOf(
    await modern(peer, "tools/call", {
      name: "same_key",
      inputResponses: { k: ELICITED },
      requestState: resultOf(first).requestState,
    }),
  );
  assert.equal(retry.isError, true);
  assert.match(JSON.stringify(retry.content), /used by two asks/);
  await peer.close();
  await server.close();
});
