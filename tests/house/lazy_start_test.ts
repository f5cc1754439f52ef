/**
 * A server loads what it uses: the root entry's static graph (what runs
 * before the first reply) holds neither the 2026-07-28 era's front door,
 * nor the tasks extension, nor the skills methods, nor the HTTP endpoint;
 * each is reached by a literal `import()`, so `deno compile` and
 * `deno publish` still see it. The loader of those parts answers a failed
 * load with a clear error, and a server closes a task store it was given
 * even when no modern request ever loaded the task runner.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError } from "../../mod.ts";
import { MemoryTaskStore } from "../../tasks.ts";
import { LazyPart } from "../../src/server/lazy_part.ts";

/** Loaded only on first use; none may be in the root's static graph. */
const LAZY: readonly string[] = [
  "src/server/modern_door.ts",
  "src/eras/methods/modern.ts",
  "src/eras/tasks/runner.ts",
  "src/eras/tasks/memory_task_store.ts",
  "src/extensions/skills/methods.ts",
  "src/http/handler.ts",
  "src/server/http_listener.ts",
  "src/eras/modern/request_state.ts",
  "src/schema/_codegen.ts",
  "src/schema/_codegen_arrays.ts",
  "src/schema/_codegen_objects.ts",
  "src/schema/_codegen_rules.ts",
  "src/schema/_source.ts",
  "src/core/client_asks.ts",
  "src/core/elicitation_forms.ts",
  "src/eras/legacy/client_requests.ts",
  "src/extensions/skills/catalog.ts",
];

interface Module {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** The modules `root` reaches by static imports only, and those it reaches at all. */
function graphOf(root: string): { static: Set<string>; all: Set<string> } {
  const output = new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const graph: { roots: string[]; modules: Module[] } = JSON.parse(
    new TextDecoder().decode(output.stdout),
  );
  const base = new URL("../../", import.meta.url).href;
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  const reached = new Set<string>();
  const stack = [...graph.roots];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (reached.has(next)) continue;
    reached.add(next);
    for (const dependency of modules.get(next)?.dependencies ?? []) {
      if (dependency.code !== undefined && dependency.isDynamic !== true) {
        stack.push(dependency.code.specifier);
      }
    }
  }
  const relative = (specifier: string): string => specifier.replace(base, "");
  return {
    static: new Set([...reached].map(relative)),
    all: new Set(graph.modules.map((module) => relative(module.specifier))),
  };
}

Deno.test("the root entry's static graph leaves the modern era, tasks, skills methods and HTTP to first use", () => {
  const graph = graphOf(new URL("../../mod.ts", import.meta.url).href);
  assert.ok(graph.static.has("src/server/create_server.ts"), "the graph was not read");
  assert.deepEqual(LAZY.filter((file) => graph.static.has(file)), []);
  // Reached through a literal import(): compiled binaries and the published package include them.
  assert.deepEqual(LAZY.filter((file) => !graph.all.has(file)), []);
});

Deno.test("a lazy part that fails to load answers a clear error, and the next call tries again", async () => {
  const logged: string[] = [];
  let attempts = 0;
  const part = new LazyPart(
    () => ++attempts === 1 ? Promise.reject(new Error("disk gone")) : Promise.resolve(42),
    "the answer",
    (message) => logged.push(message),
  );
  await assert.rejects(part.get(), (error: unknown) => {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, ErrorCode.InternalError);
    assert.equal(error.message, "Cannot load the answer");
    return true;
  });
  assert.deepEqual(logged, ["warden: cannot load the answer: Error: disk gone"]);
  assert.equal(part.value, undefined);
  assert.equal(await part.get(), 42);
  assert.equal(part.value, 42);
  assert.equal(attempts, 2);
  assert.equal(await part.close(), 42);
  await assert.rejects(part.get(), /shutting down/);
});

Deno.test("concurrent first calls of a lazy part load it once", async () => {
  let attempts = 0;
  const part = new LazyPart(() => Promise.resolve(++attempts), "a part", () => {});
  assert.deepEqual(await Promise.all([part.get(), part.get(), part.get()]), [1, 1, 1]);
  assert.equal(attempts, 1);
});

Deno.test("close() closes the task store it was given though no modern request loaded the task runner", async () => {
  const store = new MemoryTaskStore();
  let closed = 0;
  const close = store.close.bind(store);
  store.close = () => {
    closed++;
    close();
  };
  const server = createServer({
    name: "t",
    version: "1",
    tools: [
      defineTool({
        name: "echo",
        description: "e",
        inputSchema: { type: "object" },
        handler: () => "ok",
      }),
    ],
    tasks: { store },
  });
  await server.close();
  assert.equal(closed, 1);
});

Deno.test("a modern request on a fresh server loads the modern era and is answered; the next one too", async () => {
  const server = createServer({
    name: "t",
    version: "1",
    tools: [
      defineTool({
        name: "echo",
        description: "e",
        inputSchema: { type: "object" },
        handler: () => "ok",
      }),
    ],
  });
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  try {
    for (const id of [1, 2]) {
      const reply = await server.handle({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo", arguments: {}, _meta: meta },
      });
      assert.ok(reply !== undefined && "result" in reply, JSON.stringify(reply));
      assert.equal(reply.result.resultType, "complete");
    }
  } finally {
    await server.close();
  }
});

Deno.test("a fresh process validates with closures until the code generator has loaded, then generates code", () => {
  // A fresh process: this one may have loaded the generator already.
  const script = `
    import { compileSchema, loadGenerator } from "./src/schema/compile.ts";
    const RealFunction = globalThis.Function;
    let built = 0;
    globalThis.Function = new Proxy(RealFunction, {
      construct(target, args) { built++; return new target(...args); },
    });
    const validate = compileSchema({ type: "object", required: ["a"] });
    const first = [validate({ a: 1 }).length, validate({}).length, built];
    await loadGenerator();
    const later = [validate({ a: 1 }).length, validate({}).length, built];
    console.log(JSON.stringify({ first, later }));
  `;
  const output = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    cwd: new URL("../../", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
    first: [0, 1, 0],
    later: [0, 1, 1],
  });
});

Deno.test("a stdio server answers and ends without touching a Web Stream", async () => {
  // A fresh process, its stream classes watched from before Warden is loaded.
  const script = `
    const touched = new Set();
    for (const name of ["ReadableStream", "WritableStream", "TransformStream"]) {
      const real = globalThis[name];
      Object.defineProperty(globalThis, name, {
        configurable: true,
        get() { touched.add(name); return real; },
      });
    }
    const { createServer, defineTool, serveStdio } = await import("./mod.ts");
    const server = createServer({ name: "t", version: "1", tools: [defineTool({
      name: "echo", description: "e", inputSchema: { type: "object" }, handler: () => "ok",
    })] });
    await serveStdio(server, { handleSignals: false });
    console.error("touched:" + JSON.stringify([...touched]));
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    cwd: new URL("../../", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: {} } },
  ].map((message) => JSON.stringify(message) + "\n").join("");
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines));
  await writer.close();
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const replies = new TextDecoder().decode(output.stdout).trim().split("\n").map((line) =>
    JSON.parse(line)
  );
  assert.deepEqual(replies.map((reply) => reply.id), [1, 2]);
  assert.ok("result" in replies[1], JSON.stringify(replies[1]));
  assert.match(stderr, /touched:\[\]/);
});
