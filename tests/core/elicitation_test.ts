/**
 * Revision 2025-11-25 next to the three older ones: negotiation, icons,
 * tool-name rules, validation failures as results (SEP-1303), elicitation
 * enum forms and defaults (SEP-1330, SEP-1034), URL-mode elicitation and
 * JSON Schema 2020-12 input schemas. Clients are fakes over the in-memory
 * pair, plus the official SDK client for what the conformance suite sends.
 */

import assert from "node:assert/strict";
import {
  createServer,
  defineTool,
  ErrorCode,
  type RequestContext,
  type Server,
  type Transport,
} from "../../mod.ts";
import { auditLog, callbackAuditSink } from "../../guardrails.ts";
import { createMemoryPair } from "../../testing.ts";
import type { AuditEntry } from "../../src/guardrails/audit/audit.ts";
import { checkElicitSchema } from "../../src/core/elicitation_forms.ts";
import { errorOf, initialize, isRecord, request, resultOf } from "../_helpers/helpers.ts";
import {
  Client,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  type SdkTransport,
} from "../_helpers/sdk.ts";

type Message = Record<string, unknown>;

/** Answers a server → client request: a result, or throws for an error reply. */
type Answer = (method: string, params: Message) => unknown;

/** A scripted client on one end of a memory pair. */
interface Peer {
  /** Sends a request and resolves to the whole reply. */
  call(method: string, params?: Message): Promise<Message>;
  /** Sends a batch and resolves to the reply frame. */
  batch(messages: unknown[]): Promise<unknown>;
  /** Server → client requests and notifications, in arrival order. */
  readonly received: Message[];
  /** Ends the session and waits for the server to finish it. */
  close(): Promise<void>;
}

const refuseAll: Answer = (method) => {
  throw new Error(`Unexpected ${method}`);
};

/** Connects a fake client to `server`, initialized at `version` with `capabilities`. */
async function connectPeer(
  server: Server,
  version: string,
  capabilities: Message = {},
  answer: Answer = refuseAll,
): Promise<Peer & { negotiated: unknown }> {
  const [client, serverEnd] = createMemoryPair();
  const done = server.connect(serverEnd);
  const writer = client.writable.getWriter();
  const pending = new Map<unknown, (reply: unknown) => void>();
  let onBatch: ((reply: unknown) => void) | undefined;
  const received: Message[] = [];
  let next = 0;
  const send = (message: unknown) => writer.write(JSON.stringify(message));
  const reading = (async () => {
    for await (const frame of client.readable) {
      const message: unknown = JSON.parse(frame);
      if (!isRecord(message) || message.id === null) {
        onBatch?.(message);
        continue;
      }
      if (typeof message.method !== "string") {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
        continue;
      }
      received.push(message);
      if (message.id === undefined) continue;
      const params = isRecord(message.params) ? message.params : {};
      try {
        const result = await answer(message.method, params);
        await send({ jsonrpc: "2.0", id: message.id, result });
      } catch (error) {
        await send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ErrorCode.InternalError, message: String(error) },
        });
      }
    }
  })();
  const call = async (method: string, params?: Message): Promise<Message> => {
    const id = `c${++next}`;
    const reply = new Promise<unknown>((resolve) => pending.set(id, resolve));
    await send(
      params === undefined ? { jsonrpc: "2.0", id, method } : {
        jsonrpc: "2.0",
        id,
        method,
        params,
      },
    );
    const message = await reply;
    assert.ok(isRecord(message));
    return message;
  };
  const init = await call("initialize", {
    protocolVersion: version,
    capabilities,
    clientInfo: { name: `peer-${version}`, version: "1.0.0" },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    negotiated: resultOf(init).protocolVersion,
    call,
    batch: async (messages) => {
      const reply = new Promise<unknown>((resolve) => (onBatch = resolve));
      await send(messages);
      return await reply;
    },
    received,
    close: async () => {
      await writer.close();
      await done;
      await reading;
    },
  };
}

/** The text of a result's only text block. */
function onlyText(result: Message): string {
  const content = result.content;
  assert.ok(Array.isArray(content) && content.length === 1, JSON.stringify(result));
  const [block] = content;
  assert.ok(isRecord(block) && block.type === "text" && typeof block.text === "string");
  return block.text;
}

/** True when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
/** Compiles only when its type argument is `true`. */
function assertType<T extends true>(_proof: T): void {}

const ADD = defineTool({
  name: "add",
  description: "Adds two integers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
  },
  handler: ({ a, b }) => String(a + b),
});

// ---------------------------------------------------------------- negotiation

Deno.test("createServer() negotiates each of the four revisions per session, side by side", async () => {
  const server = createServer({ name: "s", version: "1", tools: [ADD], log: () => {} });
  const versions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-01-01"];
  const peers = await Promise.all(versions.map((version) => connectPeer(server, version)));
  try {
    assert.deepEqual(peers.map((peer) => peer.negotiated), [
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
      "2025-11-25", // an unknown offer gets the newest
    ]);
    const calls = await Promise.all(
      peers.map((peer) => peer.call("tools/call", { name: "add", arguments: { a: 1, b: "2" } })),
    );
    // Only sessions at 2025-11-25 turn invalid arguments into a result.
    assert.deepEqual(
      calls.map((reply) => isRecord(reply.result) ? "result" : errorOf(reply).code),
      ["result", -32602, -32602, -32602, "result"],
    );
    // Batches stay a 2025-03-26 feature, whatever the other sessions negotiated.
    const batches = await Promise.all(
      peers.map((peer) => peer.batch([{ jsonrpc: "2.0", id: "b1", method: "ping" }])),
    );
    assert.deepEqual(
      batches.map((reply) => Array.isArray(reply) ? "answered" : errorOf(reply).code),
      [-32600, -32600, "answered", -32600, -32600],
    );
  } finally {
    await Promise.all(peers.map((peer) => peer.close()));
  }
});

Deno.test("a session that never negotiated behaves as 2025-06-18", async () => {
  let seen: string | undefined;
  const server = createServer({
    name: "s",
    version: "1",
    tools: [ADD, {
      name: "which",
      description: "Reports the revision",
      inputSchema: { type: "object" },
      handler: (_args: Record<string, unknown>, ctx: RequestContext) => {
        seen = ctx.client.protocolVersion;
        return seen;
      },
    }],
  });
  await server.handle(request(1, "tools/call", { name: "which" }));
  assert.equal(seen, "2025-06-18");
  const reply = await server.handle(request(2, "tools/call", { name: "add", arguments: {} }));
  assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
  await server.handle(initialize(3, "2025-11-25"));
  await server.handle(request(4, "tools/call", { name: "which" }));
  assert.equal(seen, "2025-11-25");
});

// ---------------------------------------------------------------------- icons

const ICONS = [
  { src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] },
  { src: "data:image/svg+xml;base64,PHN2Zy8+", mimeType: "image/svg+xml", theme: "dark" },
] as const;

Deno.test("icons on tools, resources, templates and prompts are published in their lists", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    tools: [{ ...ADD, icons: ICONS }],
    resources: [{ uri: "test://a", name: "a", icons: ICONS, read: () => "a" }],
    resourceTemplates: [{ uriTemplate: "test://t/{id}", name: "t", icons: ICONS, read: () => "t" }],
    prompts: [{ name: "p", description: "P", icons: ICONS, get: () => "p" }],
  });
  await server.handle(initialize(0, "2025-11-25"));
  const lists = [
    ["tools/list", "tools"],
    ["resources/list", "resources"],
    ["resources/templates/list", "resourceTemplates"],
    ["prompts/list", "prompts"],
  ] as const;
  for (const [method, key] of lists) {
    const items = resultOf(await server.handle(request(1, method)))[key];
    assert.ok(Array.isArray(items) && items.length === 1, method);
    assert.deepEqual(items[0].icons, ICONS, method);
  }
  // Items without icons list none.
  const bare = createServer({ name: "s", version: "1", tools: [ADD] });
  const [tool] = resultOf(await bare.handle(request(1, "tools/list"))).tools as Message[];
  assert.equal(tool !== undefined && "icons" in tool, false);
});

Deno.test("registration refuses malformed icons, naming the item", () => {
  const server = createServer({ name: "s", version: "1" });
  const cases: [unknown, string][] = [
    ["icon.png", "Cannot register tool 'add': icons must be a list"],
    [[{ mimeType: "image/png" }], "Cannot register tool 'add': icon 0 needs a src URI"],
    [[{ src: "a" }, null], "Cannot register tool 'add': icon 1 must be an object"],
    [[{ src: "a", sizes: "48x48" }], "Cannot register tool 'add': icon 0 has sizes that are not"],
    [[{ src: "a", theme: "blue" }], "Cannot register tool 'add': icon 0 has a theme other than"],
  ];
  for (const [icons, message] of cases) {
    assert.throws(
      () => server.tool({ ...ADD, icons } as never),
      (error: unknown) => error instanceof TypeError && error.message.startsWith(message),
      message,
    );
  }
  assert.throws(
    () => server.prompt({ name: "p", icons: [{}] as never, get: () => "p" }),
    { name: "TypeError", message: "Cannot register prompt 'p': icon 0 needs a src URI" },
  );
  assert.throws(
    () => server.resource({ uri: "test://a", name: "a", icons: {} as never, read: () => "" }),
    { name: "TypeError", message: "Cannot register resource 'test://a': icons must be a list" },
  );
  assert.throws(
    () =>
      server.resourceTemplate({
        uriTemplate: "test://{id}",
        name: "t",
        icons: [{ src: 1 }] as never,
        read: () => "",
      }),
    {
      name: "TypeError",
      message: "Cannot register resource template 'test://{id}': icon 0 needs a src URI",
    },
  );
});

// ------------------------------------------------------------------ tool names

Deno.test("tool names must be 1 to 128 of A-Z a-z 0-9 _ . -, under every revision", () => {
  const cases: [name: string, valid: boolean][] = [
    ["a", true],
    ["x".repeat(128), true],
    ["getUser", true],
    ["DATA_EXPORT_v2", true],
    ["admin.tools.list", true],
    ["cancel-order", true],
    ["_", true],
    ["", false],
    ["x".repeat(129), false],
    ["x y", false],
    ["orders/get", false],
    ["tool,name", false],
    ["naïve", false],
    ["工具", false],
    ["emoji🙂", false],
    ["trailing\n", false],
  ];
  for (const [name, valid] of cases) {
    const server = createServer({ name: "s", version: "1" });
    const register = () => server.tool({ ...ADD, name });
    if (valid) {
      register();
    } else {
      assert.throws(
        register,
        (error: unknown) =>
          error instanceof TypeError &&
          /^Cannot register tool '.*': name must be 1 to 128 of A-Z a-z 0-9 _ \. -$/s.test(
            error.message,
          ),
        JSON.stringify(name),
      );
    }
  }
  assert.throws(() => createServer({ name: "s", version: "1", tools: [{ ...ADD, name: "x y" }] }), {
    name: "TypeError",
    message: "Cannot register tool 'x y': name must be 1 to 128 of A-Z a-z 0-9 _ . -",
  });
  // A long name is cut in the message, not repeated whole.
  assert.throws(
    () => createServer({ name: "s", version: "1", tools: [{ ...ADD, name: "y".repeat(300) }] }),
    {
      message: `Cannot register tool '${
        "y".repeat(64)
      }…': name must be 1 to 128 of A-Z a-z 0-9 _ . -`,
    },
  );
});

// --------------------------------------------------------------------- SEP-1303

Deno.test("tools/call validation failures are an isError result under 2025-11-25, -32602 before", async () => {
  const entries: AuditEntry[] = [];
  const server = createServer({
    name: "s",
    version: "1",
    tools: [ADD],
    guardrails: [auditLog({ sink: callbackAuditSink((entry) => void entries.push(entry)) })],
  });
  const bad = { name: "add", arguments: { a: 1.5 } };
  const newest = await connectPeer(server, "2025-11-25");
  const older = await connectPeer(server, "2025-06-18");
  try {
    const result = resultOf(await newest.call("tools/call", bad));
    assert.deepEqual(result, {
      content: [{
        type: "text",
        text: "Invalid arguments for tool 'add':\n" +
          "- $.a: must be integer\n" +
          "- $: must have required property 'b'",
      }],
      isError: true,
    });
    const error = errorOf(await older.call("tools/call", bad));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.deepEqual(error.data, {
      violations: [
        { path: "$.a", keyword: "type", message: "must be integer" },
        { path: "$", keyword: "required", message: "must have required property 'b'" },
      ],
    });
    // Valid arguments are unaffected either way.
    const good = { name: "add", arguments: { a: 2, b: 3 } };
    assert.equal(onlyText(resultOf(await newest.call("tools/call", good))), "5");
    assert.equal(onlyText(resultOf(await older.call("tools/call", good))), "5");
  } finally {
    await newest.close();
    await older.close();
    await server.close();
  }
  assert.deepEqual(
    entries.map((e) => [e.client?.name, e.outcome, e.error_code]),
    [
      ["peer-2025-11-25", "invalid", null],
      ["peer-2025-06-18", "invalid", -32602],
      ["peer-2025-11-25", "ok", null],
      ["peer-2025-06-18", "ok", null],
    ],
  );
});

Deno.test("an isError validation result lists at most 20 violations and counts the rest", async () => {
  const properties = Object.fromEntries(
    Array.from({ length: 25 }, (_, i) => [`f${i}`, { type: "string" }] as const),
  );
  const server = createServer({
    name: "s",
    version: "1",
    tools: [{
      name: "wide",
      description: "Many fields",
      inputSchema: { type: "object", properties },
      handler: () => "ok",
    }],
  });
  await server.handle(initialize(0, "2025-11-25"));
  const args = Object.fromEntries(Object.keys(properties).map((key) => [key, 0]));
  const text = onlyText(
    resultOf(await server.handle(request(1, "tools/call", { name: "wide", arguments: args }))),
  );
  const lines = text.split("\n");
  assert.equal(lines.length, 22);
  assert.equal(lines[1], "- $.f0: must be string");
  assert.equal(lines[21], "- and 5 more");
});

// ---------------------------------------------------------------- elicitation

/** The SEP-1034 form, as the conformance scenario expects it. */
const SEP1034_FORM = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", default: true },
  },
} as const;

/** The SEP-1330 form, as the conformance scenario expects it. */
const SEP1330_FORM = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
} as const;

const SEP1034_ANSWER = {
  name: "Jane Smith",
  age: 25,
  score: 88,
  status: "inactive",
  verified: false,
};
const SEP1330_ANSWER = {
  untitledSingle: "option1",
  titledSingle: "value1",
  legacyEnum: "opt1",
  untitledMulti: ["option1", "option2"],
  titledMulti: ["value1", "value2"],
};

/** A server whose tools elicit the conformance forms and a URL; errors become isError text. */
function elicitingServer(): Server {
  return createServer({
    name: "s",
    version: "1",
    log: () => {},
    tools: [
      defineTool({
        name: "test_elicitation_sep1034_defaults",
        description: "Elicits a form with defaults",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Please review the defaults", SEP1034_FORM);
          if (answer.action !== "accept") return `Elicitation completed: action=${answer.action}`;
          assertType<Equal<typeof answer.content.age, number | undefined>>(true);
          assertType<
            Equal<typeof answer.content.status, "active" | "inactive" | "pending" | undefined>
          >(true);
          return `Elicitation completed: action=accept, content=${JSON.stringify(answer.content)}`;
        },
      }),
      defineTool({
        name: "test_elicitation_sep1330_enums",
        description: "Elicits every enum form",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Please pick", SEP1330_FORM);
          if (answer.action !== "accept") return `Elicitation completed: action=${answer.action}`;
          const { content } = answer;
          assertType<
            Equal<typeof content.titledSingle, "value1" | "value2" | "value3" | undefined>
          >(
            true,
          );
          assertType<Equal<typeof content.legacyEnum, "opt1" | "opt2" | "opt3" | undefined>>(true);
          assertType<
            Equal<typeof content.untitledMulti, ("option1" | "option2" | "option3")[] | undefined>
          >(true);
          assertType<
            Equal<typeof content.titledMulti, ("value1" | "value2" | "value3")[] | undefined>
          >(true);
          return `Elicitation completed: action=accept, content=${JSON.stringify(content)}`;
        },
      }),
      defineTool({
        name: "confirm",
        description: "Asks a required yes/no question",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Sure?", {
            type: "object",
            properties: { ok: { type: "boolean" } },
            required: ["ok"],
          });
          assertType<
            Equal<
              typeof answer,
              { action: "decline" } | { action: "cancel" } | {
                action: "accept";
                content: { ok: boolean };
              }
            >
          >(true);
          return JSON.stringify(answer);
        },
      }),
      defineTool({
        name: "sign_in",
        description: "Sends the user to a sign-in page",
        inputSchema: {
          type: "object",
          properties: { url: { type: "string" }, id: { type: "string" } },
        },
        handler: async ({ url, id }, ctx) => {
          const answer = await ctx.elicitUrl(
            "Please sign in to Example Co",
            url ?? ((elicitationId) => `https://example.com/connect?elicitation=${elicitationId}`),
            id === undefined ? {} : { elicitationId: id },
          );
          answer.complete();
          answer.complete(); // sent once only
          return JSON.stringify({ action: answer.action, elicitationId: answer.elicitationId });
        },
      }),
    ],
  });
}

/** Accepts every form elicitation with `content` and every URL elicitation. */
function accepting(content: Message): Answer {
  return (method, params) => {
    assert.equal(method, "elicitation/create");
    return params.mode === "url" ? { action: "accept" } : { action: "accept", content };
  };
}

Deno.test("ctx.elicit() sends the SEP-1034 defaults form verbatim, with mode form under 2025-11-25", async () => {
  const server = elicitingServer();
  const peer = await connectPeer(
    server,
    "2025-11-25",
    { elicitation: {} },
    accepting(SEP1034_ANSWER),
  );
  try {
    const result = resultOf(
      await peer.call("tools/call", { name: "test_elicitation_sep1034_defaults" }),
    );
    assert.equal(
      onlyText(result),
      `Elicitation completed: action=accept, content=${JSON.stringify(SEP1034_ANSWER)}`,
    );
    const [asked] = peer.received;
    assert.equal(asked?.method, "elicitation/create");
    assert.deepEqual(asked.params, {
      mode: "form",
      message: "Please review the defaults",
      requestedSchema: SEP1034_FORM,
    });
  } finally {
    await peer.close();
  }
});

Deno.test("ctx.elicit() sends all five SEP-1330 enum forms verbatim and types the answer", async () => {
  const server = elicitingServer();
  const peer = await connectPeer(
    server,
    "2025-11-25",
    { elicitation: { form: {} } },
    accepting(SEP1330_ANSWER),
  );
  try {
    const result = resultOf(
      await peer.call("tools/call", { name: "test_elicitation_sep1330_enums" }),
    );
    assert.equal(
      onlyText(result),
      `Elicitation completed: action=accept, content=${JSON.stringify(SEP1330_ANSWER)}`,
    );
    const [asked] = peer.received;
    // The legacy field keeps its enumNames on the wire; only the answer's validator drops them.
    assert.deepEqual(asked?.params, {
      mode: "form",
      message: "Please pick",
      requestedSchema: SEP1330_FORM,
    });
  } finally {
    await peer.close();
  }
});

Deno.test("ctx.elicit() omits mode under revisions before 2025-11-25", async () => {
  const server = elicitingServer();
  const peer = await connectPeer(
    server,
    "2025-06-18",
    { elicitation: {} },
    accepting({ ok: true }),
  );
  try {
    const result = resultOf(await peer.call("tools/call", { name: "confirm" }));
    assert.equal(onlyText(result), JSON.stringify({ action: "accept", content: { ok: true } }));
    assert.deepEqual(Object.keys(peer.received[0]?.params ?? {}), ["message", "requestedSchema"]);
  } finally {
    await peer.close();
  }
});

Deno.test("ctx.elicit() refuses an answer outside the form's choices", async () => {
  const server = elicitingServer();
  const answers: [Message, string][] = [
    [{ ...SEP1330_ANSWER, titledSingle: "value9" }, "$.titledSingle"],
    [{ ...SEP1330_ANSWER, untitledMulti: ["option1", "option7"] }, "$.untitledMulti[1]"],
    [{ ...SEP1330_ANSWER, titledMulti: "value1" }, "$.titledMulti"],
    [{ ...SEP1330_ANSWER, legacyEnum: "Option One" }, "$.legacyEnum"],
  ];
  for (const [answer, path] of answers) {
    const peer = await connectPeer(server, "2025-11-25", { elicitation: {} }, accepting(answer));
    try {
      const result = resultOf(
        await peer.call("tools/call", { name: "test_elicitation_sep1330_enums" }),
      );
      assert.equal(result.isError, true);
      assert.ok(
        onlyText(result).startsWith(
          `The client's elicitation answer does not match the form: ${path} `,
        ),
        onlyText(result),
      );
    } finally {
      await peer.close();
    }
  }
});

Deno.test("ctx.elicit() needs form mode: a URL-only client under 2025-11-25 is refused unasked", async () => {
  const server = elicitingServer();
  const cases: [version: string, capabilities: Message, refusal: string | undefined][] = [
    ["2025-11-25", {}, "elicitation"],
    ["2025-11-25", { elicitation: { url: {} } }, "elicitation.form"],
    ["2025-11-25", { elicitation: { form: {}, url: {} } }, undefined],
    ["2025-11-25", { elicitation: {} }, undefined],
    // Before 2025-11-25 the capability has no modes: any declaration means forms.
    ["2025-06-18", { elicitation: { url: {} } }, undefined],
  ];
  for (const [version, capabilities, refusal] of cases) {
    const peer = await connectPeer(server, version, capabilities, accepting({ ok: false }));
    try {
      const result = resultOf(await peer.call("tools/call", { name: "confirm" }));
      if (refusal === undefined) {
        assert.equal(result.isError, undefined, JSON.stringify(capabilities));
        assert.equal(peer.received.length, 1);
      } else {
        assert.equal(result.isError, true);
        assert.match(onlyText(result), new RegExp(`^The client does not support ${refusal} `));
        assert.deepEqual(peer.received, []);
      }
    } finally {
      await peer.close();
    }
  }
});

Deno.test("checkElicitSchema() accepts every SEP-1330 form and default, and refuses the rest", () => {
  checkElicitSchema(SEP1034_FORM);
  checkElicitSchema(SEP1330_FORM);
  checkElicitSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      colors: {
        type: "array",
        title: "Colours",
        minItems: 1,
        maxItems: 2,
        items: { type: "string", enum: ["Red", "Green", "Blue"] },
        default: ["Red", "Green"],
      },
      hex: {
        type: "string",
        oneOf: [{ const: "#FF0000", title: "Red" }, { const: "#00FF00", title: "Green" }],
        default: "#FF0000",
      },
      email: { type: "string", format: "email", minLength: 3, default: "a@b.c" },
      legacy: { type: "string", enum: ["a", "b"], enumNames: ["A", "B"], default: "b" },
    },
    required: ["colors"],
  });
  const field = (definition: unknown) => ({ type: "object", properties: { f: definition } });
  const cases: [schema: unknown, message: string][] = [
    [{ type: "object", properties: {}, title: "x" }, "unsupported keyword 'title'"],
    [field({ type: "object", properties: {} }), "field 'f': must be a string, number,"],
    [field({ type: "array", items: { type: "number" } }), "field 'f': items must be"],
    [field({ type: "array", items: { type: "string" } }), "field 'f': items must be"],
    [field({ type: "array", items: { type: "string", enum: [1] } }), "field 'f': items must be"],
    [
      field({ type: "array", items: { anyOf: [{ const: 1, title: "One" }] } }),
      "field 'f': items must be",
    ],
    [field({ type: "string", pattern: "^a" }), "field 'f': unsupported keyword 'pattern'"],
    [field({ type: "number", enum: [1, 2] }), "field 'f': unsupported keyword 'enum'"],
    [
      field({ type: "string", enum: ["a"], format: "email" }),
      "field 'f': unsupported keyword 'format'",
    ],
    [field({ type: "string", oneOf: [{ const: "a", title: 1 }] }), "field 'f': oneOf must be"],
    [field({ type: "string", oneOf: [{ const: 1, title: "One" }] }), "field 'f': oneOf must be"],
    [
      field({ type: "string", oneOf: [{ const: "a", title: "A", x: 1 }] }),
      "field 'f': oneOf must be",
    ],
    [field({ type: "string", oneOf: [] }), "field 'f': oneOf must be"],
    [
      field({ type: "string", enum: ["a"], oneOf: [{ const: "a", title: "A" }] }),
      "field 'f': takes enum or oneOf, not both",
    ],
    [field({ type: "string", enum: [] }), "field 'f': enum must be a non-empty list of strings"],
    [
      field({ type: "string", enum: ["a", "b"], enumNames: ["A"] }),
      "field 'f': enumNames must be strings, one per enum value",
    ],
    [field({ type: "string", enumNames: ["A"] }), "field 'f': enumNames needs enum"],
    [
      field({ type: "string", format: "phone" }),
      "field 'f': format must be email, uri, date or date-time",
    ],
    [field({ type: "string", title: 3 }), "field 'f': title must be a string"],
    [
      field({ type: "string", minLength: -1 }),
      "field 'f': 'minLength' must be a non-negative integer at #",
    ],
    [
      field({ type: "string", default: 3 }),
      "field 'f': default does not fit the field: $ must be string",
    ],
    [
      field({ type: "integer", default: 1.5 }),
      "field 'f': default does not fit the field: $ must be integer",
    ],
    [
      field({ type: "integer", minimum: 1, default: 0 }),
      "field 'f': default does not fit the field: $ must be >= 1",
    ],
    [
      field({ type: "boolean", default: "yes" }),
      "field 'f': default does not fit the field: $ must be boolean",
    ],
    [
      field({ type: "string", enum: ["a"], default: "b" }),
      "field 'f': default does not fit the field: $ must be one of \"a\"",
    ],
    [
      field({ type: "string", oneOf: [{ const: "a", title: "A" }], default: "b" }),
      "field 'f': default does not fit the field: $ must match exactly one schema in oneOf",
    ],
    [
      field({ type: "array", items: { type: "string", enum: ["a"] }, default: ["b"] }),
      "field 'f': default does not fit the field: $[0]",
    ],
    [
      field({ type: "array", items: { type: "string", enum: ["a"] }, default: "a" }),
      "field 'f': default does not fit the field: $ must be array",
    ],
    [
      { type: "object", properties: { f: { type: "string" } }, required: ["g"] },
      "required must list declared fields",
    ],
  ];
  for (const [schema, message] of cases) {
    assert.throws(
      () => checkElicitSchema(schema),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message.startsWith(`Invalid elicitation schema: ${message}`),
      `${JSON.stringify(schema)} → ${message}`,
    );
  }
});

// ------------------------------------------------------------ URL elicitation

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Deno.test("ctx.elicitUrl() sends mode url with a random id, and complete() notifies once", async () => {
  const server = elicitingServer();
  const peer = await connectPeer(
    server,
    "2025-11-25",
    { elicitation: { url: {} } },
    accepting({}),
  );
  try {
    const first = JSON.parse(
      onlyText(resultOf(await peer.call("tools/call", { name: "sign_in" }))),
    );
    const second = JSON.parse(
      onlyText(resultOf(await peer.call("tools/call", { name: "sign_in" }))),
    );
    assert.equal(first.action, "accept");
    assert.match(first.elicitationId, UUID);
    assert.notEqual(first.elicitationId, second.elicitationId);
    const [asked, completed] = peer.received;
    assert.deepEqual(asked?.params, {
      mode: "url",
      message: "Please sign in to Example Co",
      url: `https://example.com/connect?elicitation=${first.elicitationId}`,
      elicitationId: first.elicitationId,
    });
    assert.deepEqual(completed, {
      jsonrpc: "2.0",
      method: "notifications/elicitation/complete",
      params: { elicitationId: first.elicitationId },
    });
    assert.equal(peer.received.length, 4);

    const chosen = JSON.parse(onlyText(resultOf(
      await peer.call("tools/call", {
        name: "sign_in",
        arguments: { url: "https://example.com/pay", id: "pay-7" },
      }),
    )));
    assert.equal(chosen.elicitationId, "pay-7");
    assert.deepEqual(peer.received[4]?.params, {
      mode: "url",
      message: "Please sign in to Example Co",
      url: "https://example.com/pay",
      elicitationId: "pay-7",
    });
  } finally {
    await peer.close();
  }
});

Deno.test("ctx.elicitUrl() passes on a declined request", async () => {
  const server = elicitingServer();
  const peer = await connectPeer(
    server,
    "2025-11-25",
    { elicitation: { url: {} } },
    () => ({ action: "decline" }),
  );
  try {
    const answer = JSON.parse(
      onlyText(resultOf(await peer.call("tools/call", { name: "sign_in" }))),
    );
    assert.equal(answer.action, "decline");
  } finally {
    await peer.close();
  }
});

Deno.test("ctx.elicitUrl() needs elicitation.url under 2025-11-25, and sends nothing without it", async () => {
  const server = elicitingServer();
  const cases: [string, Message][] = [
    ["2025-11-25", {}],
    ["2025-11-25", { elicitation: {} }],
    ["2025-11-25", { elicitation: { form: {} } }],
    ["2025-11-25", { elicitation: { url: true } }],
    ["2025-06-18", { elicitation: { url: {} } }],
  ];
  for (const [version, capabilities] of cases) {
    const peer = await connectPeer(server, version, capabilities, accepting({}));
    try {
      const result = resultOf(await peer.call("tools/call", { name: "sign_in" }));
      assert.equal(result.isError, true);
      assert.equal(
        onlyText(result),
        "The client does not support elicitation.url (it declared no 'elicitation.url' capability)",
        JSON.stringify(capabilities),
      );
      assert.deepEqual(peer.received, []);
    } finally {
      await peer.close();
    }
  }
});

Deno.test("ctx.elicitUrl() refuses a URL that is not absolute", async () => {
  const server = elicitingServer();
  const peer = await connectPeer(server, "2025-11-25", { elicitation: { url: {} } }, accepting({}));
  try {
    const result = resultOf(
      await peer.call("tools/call", { name: "sign_in", arguments: { url: "/connect" } }),
    );
    assert.equal(result.isError, true);
    assert.match(onlyText(result), /^Invalid URL elicitation: url must be an absolute URL/);
    assert.deepEqual(peer.received, []);
  } finally {
    await peer.close();
  }
});

// ------------------------------------------------------- the official SDK client

/** Runs the SDK's client over the client end of a memory pair. */
function sdkTransport(end: Transport): SdkTransport {
  const writer = end.writable.getWriter();
  const transport: SdkTransport = {
    start: () => {
      (async () => {
        for await (const frame of end.readable) transport.onmessage?.(JSON.parse(frame));
        transport.onclose?.();
      })();
      return Promise.resolve();
    },
    send: (message: JSONRPCMessage) => writer.write(JSON.stringify(message)),
    close: () => writer.close().catch(() => {}),
  };
  return transport;
}

Deno.test("the official SDK client accepts the SEP-1034, SEP-1330 and URL elicitations", async () => {
  const server = elicitingServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  const serving = server.connect(serverEnd);
  const client = new Client(
    { name: "conformance-like", version: "1.0.0" },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  const asked: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    if (request.params.mode === "url") return { action: "accept" };
    return {
      action: "accept",
      content: request.params.message === "Please pick" ? SEP1330_ANSWER : SEP1034_ANSWER,
    };
  });
  const completed: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  try {
    await client.connect(sdkTransport(clientEnd));
    const defaults = await client.callTool({ name: "test_elicitation_sep1034_defaults" });
    assert.notEqual(defaults.isError, true, JSON.stringify(defaults));
    const enums = await client.callTool({ name: "test_elicitation_sep1330_enums" });
    assert.notEqual(enums.isError, true, JSON.stringify(enums));
    const url = await client.callTool({ name: "sign_in" });
    assert.notEqual(url.isError, true, JSON.stringify(url));
    assert.equal(asked.length, 3);
    const [, , urlRequest] = asked;
    assert.ok(isRecord(urlRequest) && typeof urlRequest.elicitationId === "string");
    // Let the notification arrive.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(completed, [urlRequest.elicitationId]);
  } finally {
    await client.close();
    await serving;
  }
});

// ------------------------------------------------------- JSON Schema 2020-12

/** The conformance suite's JSON Schema 2020-12 tool schema. */
const SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
} as const;

Deno.test("a JSON Schema 2020-12 tool registers, validates and is published verbatim", async () => {
  const original = JSON.parse(JSON.stringify(SCHEMA_2020_12));
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: SCHEMA_2020_12,
      handler: ({ name, address }) =>
        `${name ?? "?"} at ${address === undefined ? "?" : "an address"}`,
    })],
  });
  await server.handle(initialize(0, "2025-11-25"));
  const [tool] = resultOf(await server.handle(request(1, "tools/list"))).tools as Message[];
  assert.deepEqual(tool, {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: original,
  });
  const call = async (args: Message) =>
    resultOf(
      await server.handle(
        request(2, "tools/call", { name: "json_schema_2020_12_tool", arguments: args }),
      ),
    );
  assert.equal(
    onlyText(await call({ name: "Ada", address: { street: "1 Main St", city: "Springfield" } })),
    "Ada at an address",
  );
  const wrong = await call({ name: "Ada", address: { city: 7 }, extra: true });
  assert.equal(wrong.isError, true);
  assert.equal(
    onlyText(wrong),
    "Invalid arguments for tool 'json_schema_2020_12_tool':\n" +
      "- $.address.city: must be string\n" +
      "- $: must NOT have additional property 'extra'",
  );
});
