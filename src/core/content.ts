/**
 * MCP content, tool results, resource contents and prompt messages: the
 * shapes handlers return, and the functions that turn a handler's return
 * value into the wire form.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";

/**
 * Optional hints on a content block for the client.
 *
 * @example A warning meant for the user rather than the model
 * ```ts
 * import type { ContentAnnotations, ContentBlock } from "@warden/mcp";
 * const forUser: ContentAnnotations = {
 *   audience: ["user"],
 *   priority: 0.9,
 *   lastModified: "2026-01-05T09:30:00Z",
 * };
 * const warning: ContentBlock = {
 *   type: "text",
 *   text: "Prices changed since this quote was made.",
 *   annotations: forUser,
 * };
 * ```
 */
export interface ContentAnnotations {
  /** Who the block is meant for. */
  audience?: ("user" | "assistant")[];
  /** 0 (least) to 1 (most important). */
  priority?: number;
  /** ISO 8601 time the content was last modified. */
  lastModified?: string;
}

/**
 * The contents of one resource, as text or as a base64 blob.
 *
 * @example An invoice embedded in a tool result
 * ```ts
 * import type { ResourceContents, ToolResult } from "@warden/mcp";
 * const invoice: ResourceContents = {
 *   uri: "orders://ORD-42/invoice",
 *   mimeType: "text/csv",
 *   text: "item,qty,price\nSKU-1,2,9.90\n",
 * };
 * const result: ToolResult = {
 *   content: [{ type: "text", text: "Invoice attached" }, { type: "resource", resource: invoice }],
 * };
 * ```
 */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

/**
 * Any block a tool result or prompt message may carry: text, an image or
 * audio (base64 data with its MIME type), an embedded resource, or a link
 * to a resource the client may read. Each may carry `annotations` (client
 * hints) and `_meta` (extension metadata).
 *
 * @example A chart, its caption, and a link to the full data
 * ```ts
 * import { defineTool, type ContentBlock } from "@warden/mcp";
 * const chartPng = "iVBORw0KGgo="; // base64 PNG data
 * const salesChart = defineTool({
 *   name: "sales_chart",
 *   description: "This month's sales as a chart",
 *   inputSchema: { type: "object", properties: {} },
 *   handler: (): ContentBlock[] => [
 *     { type: "text", text: "Sales rose 12% in March." },
 *     { type: "image", data: chartPng, mimeType: "image/png" },
 *     { type: "resource_link", uri: "reports://sales/2026-03", name: "sales-2026-03" },
 *   ],
 * });
 * ```
 */
export type ContentBlock =
  | {
    type: "text";
    text: string;
    annotations?: ContentAnnotations;
    _meta?: Record<string, unknown>;
  }
  | {
    type: "image" | "audio";
    /** Base64 data. */
    data: string;
    /** For example `image/png` or `audio/wav`. */
    mimeType: string;
    annotations?: ContentAnnotations;
    _meta?: Record<string, unknown>;
  }
  | {
    type: "resource";
    resource: ResourceContents;
    annotations?: ContentAnnotations;
    _meta?: Record<string, unknown>;
  }
  | {
    type: "resource_link";
    /** The linked resource's URI. */
    uri: string;
    /** Programmatic name. */
    name: string;
    /** Human-readable name. */
    title?: string;
    /** What the resource is. */
    description?: string;
    /** Its MIME type, when known. */
    mimeType?: string;
    annotations?: ContentAnnotations;
    _meta?: Record<string, unknown>;
  };

/** A text block. */
export type TextContent = Extract<ContentBlock, { type: "text" }>;

/**
 * The full result of a tool call, as sent to the client.
 *
 * @example Typed output for the client, and text for the model
 * ```ts
 * import { defineTool, type ToolResult } from "@warden/mcp";
 * const orderStatus = defineTool({
 *   name: "order_status",
 *   description: "An order's status",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
 *   outputSchema: {
 *     type: "object",
 *     properties: { id: { type: "string" }, status: { type: "string" } },
 *     required: ["id", "status"],
 *   },
 *   handler: ({ id }): ToolResult<{ id: string; status: string }> => ({
 *     content: [{ type: "text", text: `Order ${id} has shipped` }],
 *     structuredContent: { id, status: "shipped" },
 *   }),
 * });
 * ```
 */
export interface ToolResult<S = Record<string, unknown>> {
  /** What the model reads. */
  content?: ContentBlock[];
  /** Typed output matching the tool's `outputSchema`. */
  structuredContent?: S;
  /** True when the call was made and failed. */
  isError?: boolean;
  /** Extension metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * One message of a prompt.
 *
 * @example A prompt that hands the model a file to review
 * ```ts
 * import { definePrompt, type PromptMessage } from "@warden/mcp";
 * const review = definePrompt({
 *   name: "review_config",
 *   arguments: [{ name: "config", required: true }],
 *   get: ({ config }): PromptMessage[] => [
 *     { role: "user", content: { type: "text", text: "Review this configuration for risks." } },
 *     {
 *       role: "user",
 *       content: { type: "resource", resource: { uri: "file:///etc/app.toml", text: config } },
 *     },
 *   ],
 * });
 * ```
 */
export interface PromptMessage {
  /** Who speaks it. */
  role: "user" | "assistant";
  /** One content block. */
  content: ContentBlock;
}

const BLOCK_TYPES: ReadonlySet<string> = new Set([
  "text",
  "image",
  "audio",
  "resource",
  "resource_link",
]);

/**
 * Why `value` is not a content block, or undefined when it is one. Checks only
 * what a client needs to render it; blocks otherwise pass through unchanged.
 */
export function contentBlockProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return "is not an object";
  const type = value.type;
  if (typeof type !== "string" || !BLOCK_TYPES.has(type)) {
    return `has unknown type ${JSON.stringify(type)}`;
  }
  switch (type) {
    case "text":
      return typeof value.text === "string" ? undefined : "needs a string 'text'";
    case "image":
    case "audio":
      return typeof value.data === "string" && typeof value.mimeType === "string"
        ? undefined
        : "needs string 'data' and 'mimeType'";
    case "resource": {
      const r = value.resource;
      return isRecord(r) && typeof r.uri === "string" &&
          (typeof r.text === "string" || typeof r.blob === "string")
        ? undefined
        : "needs a 'resource' with 'uri' and 'text' or 'blob'";
    }
    default:
      return typeof value.uri === "string" && typeof value.name === "string"
        ? undefined
        : "needs string 'uri' and 'name'";
  }
}

/** Checks a list of blocks; returns the first problem, naming its index. */
export function contentListProblem(blocks: readonly unknown[]): string | undefined {
  for (let i = 0; i < blocks.length; i++) {
    const problem = contentBlockProblem(blocks[i]);
    if (problem !== undefined) return `content block ${i} ${problem}`;
  }
  return undefined;
}

/** One text block. */
export function text(value: string): TextContent {
  return { type: "text", text: value };
}

const BASE64_CHUNK = 0x8000;

/** Base64 without a dependency: chunked so large inputs don't overflow the argument limit. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += BASE64_CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + BASE64_CHUNK));
  }
  return btoa(binary);
}
