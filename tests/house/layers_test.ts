/**
 * The house: every import in src/ points down one layer order, type-only
 * imports included, and every folder has its place in it. A new folder
 * fails here until it is given a floor; an upward import fails with the
 * line that makes it.
 */

import assert from "node:assert/strict";
import { importsOf, sourceFiles } from "./source_graph.ts";

/**
 * The rooms, bottom first. A file may import its own room and the rooms
 * below it, never one above. The longest matching prefix is a file's room.
 */
export const LAYERS: readonly string[] = [
  "src/schema", // JSON Schema 2020-12: compiler and inferred types
  "src/jsonrpc", // wire types and error codes
  "src/runtime", // the host: stdio, listening, signals
  "src/runtime/npm", // the npm packages optional integrations load, one file each
  "src/call", // the call contract: context, outcome, Guardrail, compose
  "src/store", // shared state and its own types (token buckets included)
  "src/transports", // stdio, in-memory, line framing
  "src/dispatcher", // method table, in-flight requests, connections
  "src/core", // registries, the request core, the session both eras use
  "src/eras/legacy", // what only handshake sessions need
  "src/eras/modern", // what only 2026-07-28 requests need
  "src/eras/tasks", // the tasks extension, on the modern era
  "src/eras/methods", // the two front doors: their method tables
  "src/extensions/skills", // the skills extension (SEP-2640): skills as resources, skills/*
  "src/extensions/apps", // the apps extension (SEP-1865): ui:// views linked from tools
  "src/guardrails/redact",
  "src/guardrails/access",
  "src/guardrails/rate_limit",
  "src/guardrails/audit",
  "src/guardrails/telemetry",
  "src/guardrails/policy", // all guardrails from one configuration
  "src/auth", // OAuth 2.1 resource server: metadata, challenges, token checks
  "src/http", // the Streamable HTTP endpoint
  "src/server", // createServer, serveStdio, serveHttp
  "src/setup", // flags and policy files
];

/** The room of a file under src/, or undefined when it has none. */
export function roomOf(file: string): string | undefined {
  let best: string | undefined;
  for (const room of LAYERS) {
    if (file.startsWith(`${room}/`) && (best === undefined || room.length > best.length)) {
      best = room;
    }
  }
  return best;
}

const SRC_FILES = sourceFiles("src");

Deno.test("every file under src/ has a room in the layer order", () => {
  const homeless = SRC_FILES.filter((file) => roomOf(file) === undefined);
  assert.deepEqual(homeless, [], "add these folders to LAYERS in tests/house/layers_test.ts");
});

Deno.test("every import in src/ points down the layer order, type-only ones included", () => {
  const upward: string[] = [];
  for (const file of SRC_FILES) {
    const from = LAYERS.indexOf(roomOf(file) ?? "");
    for (const found of importsOf(file)) {
      if (found.to === undefined) continue;
      const room = roomOf(found.to);
      if (room === undefined) {
        upward.push(`${file}:${found.line} imports ${found.specifier}, outside src/`);
      } else if (LAYERS.indexOf(room) > from) {
        upward.push(`${file}:${found.line} (${roomOf(file)}) imports up into ${room}`);
      }
    }
  }
  assert.deepEqual(upward, []);
});

Deno.test("only src/runtime/npm/ names npm packages; src/ names no URL", () => {
  const named: string[] = [];
  for (const file of SRC_FILES) {
    for (const found of importsOf(file)) {
      if (found.to !== undefined || found.specifier.startsWith("node:")) continue;
      if (found.specifier.startsWith("npm:") && file.startsWith("src/runtime/npm/")) continue;
      named.push(`${file}:${found.line} ${found.specifier}`);
    }
  }
  assert.deepEqual(named, []);
});

Deno.test("the layer order itself catches an upward import", () => {
  // The rule above, applied to a made-up edge, so the check cannot pass vacuously.
  const core = LAYERS.indexOf(roomOf("src/core/tools.ts") ?? "");
  const policy = LAYERS.indexOf(roomOf("src/guardrails/policy/create_guardrails.ts") ?? "");
  assert.ok(core >= 0 && policy > core);
  assert.equal(roomOf("src/eras/modern/context.ts"), "src/eras/modern");
  assert.equal(roomOf("src/eras/methods/modern.ts"), "src/eras/methods");
});
