/**
 * Generated requests with a secret planted in them, for the masking tests:
 * every method and notification of both eras' method tables (read from the
 * tables, so a method added later is generated too), names no table has,
 * parameters carrying the secret, and over HTTP headers that disagree with
 * the body. Deterministic for a seed, so a failure can be replayed.
 */

import type { HeaderPatch } from "./http_helpers.ts";
import { modernMeta } from "./helpers.ts";
import { SECRET } from "./leaky_tools.ts";
import { seededRandom } from "./seeded_random.ts";
import { legacyMethods } from "../../src/eras/methods/legacy.ts";
import { MODERN_METHOD_NAMES } from "../../src/eras/methods/modern.ts";
import { SKILLS_METHOD_NAMES } from "../../src/extensions/skills/methods.ts";

/** Every method and notification name either era's table answers, plus names no table has. */
export function methodNames(): string[] {
  // The tables' rows are closures over deps they do not call until a request comes.
  const legacy = legacyMethods({} as never);
  return [
    ...new Set([
      ...legacy.methods.keys(),
      ...legacy.notifications.keys(),
      ...MODERN_METHOD_NAMES,
      ...SKILLS_METHOD_NAMES,
      "server/discover",
      SECRET,
      `tools/${SECRET}`,
      NEAR_CUT,
      "constructor",
      "toString",
      "hasOwnProperty",
      "__proto__",
    ]),
  ];
}

/** A name that messages cut at 80 characters would cut through the secret. */
const NEAR_CUT = `${"n".repeat(60)}${SECRET}`;

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** Values of each parameter a method reads, some valid, most carrying the secret. */
const CHOICES: Readonly<Record<string, readonly unknown[]>> = {
  name: ["echo", "meta", "fail", "rpcfail", "greet", SECRET, `x${SECRET}`, NEAR_CUT],
  uri: [
    `memo://${SECRET}`,
    "memo://gone",
    "memo://nil",
    "memo://fail",
    "memo://plain",
    `nothing://${SECRET}`,
    SECRET,
    `memo://${NEAR_CUT}`,
    "skill://planted/SKILL.md",
    "skill://planted/notes.md",
    "skill://planted",
    `skill://${SECRET}/SKILL.md`,
    "ui://planted/view",
  ],
  arguments: [{ text: SECRET }, { who: SECRET }, { [SECRET]: SECRET }, SECRET],
  cursor: [SECRET, "bm90LWEtY3Vyc29y"],
  level: [SECRET, "debug", "info"],
  taskId: [SECRET],
  protocolVersion: [SECRET, "2025-06-18", "2025-11-25"],
  capabilities: [{ [SECRET]: { x: SECRET } }],
  clientInfo: [{ name: SECRET, version: SECRET }],
  ref: [
    { type: "ref/prompt", name: "greet" },
    { type: "ref/prompt", name: SECRET },
    { type: "ref/resource", uri: "memo://{id}" },
    { type: "ref/resource", uri: SECRET },
  ],
  argument: [{ name: "who", value: SECRET }, { name: "id", value: SECRET }, {
    name: SECRET,
    value: SECRET,
  }],
  requestId: [SECRET, 1],
  reason: [SECRET],
  notifications: [
    { resourcesListChanged: true, resourceSubscriptions: [`memo://${SECRET}`, SECRET] },
    { [SECRET]: true },
  ],
  inputResponses: [{ [SECRET]: { action: "accept", content: { x: SECRET } } }],
  requestState: [SECRET],
  status: [SECRET],
};

/** One request's params: a random subset of every parameter, so each method gets what it reads. */
function plantedParams(next: () => number): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(CHOICES)) {
    if (next() < 0.7) params[key] = pick(next, values);
  }
  return params;
}

/** A modern `_meta`, sometimes with the secret in the revision, the client or an extra key. */
function plantedMeta(next: () => number): Record<string, unknown> {
  const extra = pick(next, [
    {},
    { "io.modelcontextprotocol/clientInfo": { name: SECRET, version: "1" } },
    { "io.modelcontextprotocol/logLevel": SECRET },
    { [SECRET]: SECRET, progressToken: SECRET },
    { "io.modelcontextprotocol/protocolVersion": SECRET },
  ]);
  return modernMeta({ elicitation: {}, sampling: {} }, {
    "io.modelcontextprotocol/logLevel": "debug",
    progressToken: "p1",
    ...extra,
  });
}

/** A generated request of either era (or a notification, when `id` is undefined). */
export interface Planted {
  readonly era: "legacy" | "modern";
  readonly body: Record<string, unknown>;
  /** Header changes for HTTP: headers that disagree with the body, each echoing the secret. */
  readonly patch: HeaderPatch;
}

/** Requests that reach each handler's output: the generated ones mostly end in refusals. */
const REACHING: readonly (readonly [string, Record<string, unknown>])[] = [
  ["tools/call", { name: "echo", arguments: { text: SECRET } }],
  ["tools/call", { name: "meta", arguments: {} }],
  ["tools/call", { name: "fail", arguments: {} }],
  ["tools/call", { name: "rpcfail", arguments: {} }],
  ["tools/call", { name: SECRET, arguments: {} }],
  ["tools/call", { name: NEAR_CUT, arguments: {} }],
  ["tools/call", { name: `denied${NEAR_CUT}`, arguments: {} }],
  ["prompts/get", { name: NEAR_CUT }],
  ["resources/read", { uri: `nothing://${NEAR_CUT}` }],
  ["tools/call", { name: "task_meta", arguments: {} }],
  ["tools/call", { name: "task_fail", arguments: {} }],
  ["resources/read", { uri: `memo://${SECRET}` }],
  ["resources/read", { uri: "memo://gone" }],
  ["resources/read", { uri: "memo://fail" }],
  ["prompts/get", { name: "greet", arguments: { who: SECRET } }],
  ["completion/complete", {
    ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "who", value: "a" },
  }],
  ["completion/complete", {
    ref: { type: "ref/resource", uri: "memo://{id}" },
    argument: { name: "id", value: "a" },
  }],
  ["resources/subscribe", { uri: `memo://${SECRET}` }],
  ["subscriptions/listen", { notifications: { resourceSubscriptions: [`memo://${SECRET}`] } }],
  // The extensions' channels: a skill's entry, files and directory, an app's view and its tool.
  ["skills/list", {}],
  ["skills/get", { uri: "skill://planted/SKILL.md" }],
  ["resources/read", { uri: "skill://planted/notes.md" }],
  ["resources/directory/read", { uri: "skill://planted" }],
  ["resources/read", { uri: "ui://planted/view" }],
  ["tools/list", {}],
  ["tools/call", { name: "view_tool", arguments: {} }],
];

/** The extensions a planted modern request declares, so that their methods and tools answer. */
const PLANTED_EXTENSIONS = {
  "io.modelcontextprotocol/tasks": {},
  "io.modelcontextprotocol/skills": {},
  "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
};

export function plantedRequests(seed: number, perMethod: number): Planted[] {
  const next = seededRandom(seed);
  const planted: Planted[] = [];
  let id = 100;
  for (const [method, params] of REACHING) {
    planted.push({ era: "legacy", body: { jsonrpc: "2.0", id: id++, method, params }, patch: {} });
    const modern = {
      ...params,
      _meta: modernMeta({ elicitation: {}, extensions: PLANTED_EXTENSIONS }, {
        progressToken: "p1",
        "io.modelcontextprotocol/logLevel": "debug",
      }),
    };
    planted.push({
      era: "modern",
      body: { jsonrpc: "2.0", id: id++, method, params: modern },
      patch: {},
    });
  }
  for (const method of methodNames()) {
    for (let round = 0; round < perMethod; round++) {
      const era = round % 2 === 0 ? "legacy" : "modern";
      const params = plantedParams(next);
      if (era === "modern") params._meta = plantedMeta(next);
      const notify = method.startsWith("notifications/") || next() < 0.1;
      const body: Record<string, unknown> = notify
        ? { jsonrpc: "2.0", method, params }
        : { jsonrpc: "2.0", id: id++, method, params };
      const patch: HeaderPatch = era === "legacy" ? {} : pick(next, [
        {},
        {},
        { "mcp-method": SECRET },
        { "mcp-name": SECRET },
        { "mcp-method": NEAR_CUT },
        { "mcp-protocol-version": SECRET },
      ]);
      planted.push({ era, body, patch });
    }
  }
  return planted;
}
