/**
 * Tool parameters mirrored into HTTP headers (`x-mcp-header`, revision
 * 2026-07-28): checked at registration, so a tool that clients would have
 * to reject is never served, and listed for the HTTP transport to verify
 * each request's `Mcp-Param-*` headers against its body.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";

/** One parameter mirrored into an `Mcp-Param-{header}` header. */
export interface MirroredParam {
  /** The name part of the header, as declared. */
  readonly header: string;
  /** The chain of `properties` keys from the schema root to the parameter. */
  readonly path: readonly string[];
  /** Its JSON type: only these three may be mirrored. */
  readonly type: "string" | "integer" | "boolean";
}

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Keywords whose subschemas an annotation must not sit under. */
const SUBSCHEMA_KEYWORDS = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
  "allOf",
  "anyOf",
  "oneOf",
];

/**
 * The parameters a tool's input schema mirrors into headers.
 *
 * @throws {TypeError} When an `x-mcp-header` breaks the revision's rules:
 * empty or not a token, repeated (case-insensitively), on a parameter that is
 * not a string, integer or boolean, or not reachable through `properties` alone
 */
export function mirroredParams(schema: unknown, label: string): readonly MirroredParam[] {
  const found: MirroredParam[] = [];
  const seen = new Set<string>();
  const fail = (where: string, problem: string): never => {
    throw new TypeError(`${label}: x-mcp-header at ${where} ${problem}`);
  };
  const visit = (node: unknown, path: string[], reachable: boolean, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, path, false, `${where}/${i}`));
      return;
    }
    if (!isRecord(node)) return;
    if (Object.hasOwn(node, "x-mcp-header")) {
      const header = node["x-mcp-header"];
      if (!reachable || path.length === 0) {
        fail(where, "must sit on a property reached through 'properties' alone");
      }
      if (typeof header !== "string" || !TOKEN.test(header)) {
        fail(where, "must be a non-empty HTTP token");
      }
      const name = String(header);
      if (seen.has(name.toLowerCase())) fail(where, `repeats the header name '${name}'`);
      const type = node.type;
      if (type !== "string" && type !== "integer" && type !== "boolean") {
        fail(where, "must be on a string, integer or boolean parameter");
      }
      seen.add(name.toLowerCase());
      found.push({ header: name, path: [...path], type: type as MirroredParam["type"] });
    }
    if (isRecord(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        visit(child, [...path, key], reachable, `${where}/properties/${key}`);
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const child = node[keyword];
      if (child === undefined) continue;
      if (
        keyword === "$defs" || keyword === "definitions" || keyword === "patternProperties" ||
        keyword === "dependentSchemas"
      ) {
        if (isRecord(child)) {
          for (const [key, sub] of Object.entries(child)) {
            visit(sub, path, false, `${where}/${keyword}/${key}`);
          }
        }
      } else {
        visit(child, path, false, `${where}/${keyword}`);
      }
    }
  };
  visit(schema, [], true, "#");
  return found;
}
