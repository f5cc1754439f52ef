/**
 * An order desk over MCP: the example server `deno task start` runs on stdio.
 *
 * Tools `get_order`, `add`, `cancel_order`, `report` and `export_orders`
 * (a task for clients that support tasks); resources `orders://ORD-1`,
 * `orders://ORD-2` and `orders://readme`; prompt `summarize_order`.
 *
 * @module
 */

import {
  createServer,
  defineTool,
  type HttpOptions,
  MissingCapabilityError,
  type RequestContext,
  serveHttp,
  type Server,
  serveStdio,
} from "../mod.ts";
import type { Guardrail } from "../guardrails.ts";
import { serverSetup } from "../setup.ts";
import { loadSkill } from "../skills.ts";

/** One order in the desk's in-memory book. */
export interface Order {
  /** The order id, `ORD-` and digits. */
  id: string;
  /** Who placed it. */
  customer: string;
  /** What was ordered. */
  items: { sku: string; quantity: number }[];
  /** Where it stands. */
  status: "open" | "shipped" | "cancelled";
  /** Free-form notes from the desk (they may hold secrets: see the redaction rules). */
  notes?: string;
}

function sampleOrders(): Map<string, Order> {
  return new Map([
    ["ORD-1", {
      id: "ORD-1",
      customer: "Ada",
      items: [{ sku: "LAMP-2", quantity: 1 }],
      status: "open",
    }],
    ["ORD-2", {
      id: "ORD-2",
      customer: "Grace",
      items: [{ sku: "DESK-9", quantity: 2 }, { sku: "CHAIR-4", quantity: 4 }],
      status: "shipped",
      notes: "Paid through the partner API with key ODK-4f9a8b7c6d5e4f3a2b1c0d9e8f7a",
    }],
  ]);
}

// A fragment shared by two schemas: outside a literal it needs `as const` to keep its types.
const ORDER_ID = {
  type: "string",
  pattern: "^ORD-[0-9]+$",
  description: "An order id like ORD-1",
} as const;

const README = `# Order desk

Look orders up with \`get_order\`, cancel open ones with \`cancel_order\` (the user is asked to
confirm), count them with \`report\`. Read any order as \`orders://ORD-1\`; subscribe to it to hear
when it changes.
Order ids look like \`ORD-1\`.
`;

/**
 * The confirm_cancel step: asks the user through the client (elicitation)
 * before an order is cancelled. A client that cannot ask is trusted to have
 * confirmed, as the server's instructions tell the model to.
 */
async function confirmCancel(ctx: RequestContext, orderId: string): Promise<boolean> {
  try {
    const answer = await ctx.elicit(`Cancel order ${orderId}? This cannot be undone.`, {
      type: "object",
      properties: { confirm: { type: "boolean", title: `Yes, cancel ${orderId}` } },
      required: ["confirm"],
    });
    return answer.action === "accept" && answer.content.confirm === true;
  } catch (error) {
    if (error instanceof MissingCapabilityError) return true;
    throw error;
  }
}

/** Options of {@linkcode createOrderDesk}. */
export interface OrderDeskOptions {
  /** Guardrails to run every call through. */
  guardrails?: readonly Guardrail[];
  /** The principal the guardrails decide about. */
  principal?: string;
  /** The HTTP endpoint's options (OAuth from `--auth-issuer`/`--auth-audience` among them). */
  http?: HttpOptions;
}

/**
 * Builds the order-desk server over its own in-memory book of orders.
 *
 * @example
 * ```ts
 * import { createOrderDesk } from "./orders.ts";
 * const server = createOrderDesk();
 * const reply = await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" });
 * ```
 */
export function createOrderDesk(options: OrderDeskOptions = {}): Server {
  const orders = sampleOrders();
  const find = (id: string): Order => {
    const order = orders.get(id);
    if (order === undefined) throw new Error(`no order named '${id}'`);
    return order;
  };

  const completeIds = (prefix: string): string[] =>
    [...orders.keys()].filter((id) => id.startsWith(prefix));

  const server: Server = createServer({
    ...options,
    name: "order-desk",
    title: "Order desk",
    version: "0.1.0",
    instructions:
      "Order ids look like ORD-1. Cancelling is permanent: confirm with the user first.",
    tools: [
      defineTool({
        name: "get_order",
        title: "Get order",
        description: "Look up one order by id",
        inputSchema: { type: "object", properties: { order_id: ORDER_ID }, required: ["order_id"] },
        annotations: { readOnlyHint: true },
        handler: ({ order_id }) => JSON.stringify(find(order_id), null, 2),
      }),
      defineTool({
        name: "add",
        description: "Add two integers",
        inputSchema: {
          type: "object",
          properties: { a: { type: "integer" }, b: { type: "integer" } },
          required: ["a", "b"],
          additionalProperties: false,
        },
        outputSchema: {
          type: "object",
          properties: { sum: { type: "integer" } },
          required: ["sum"],
        },
        handler: ({ a, b }) => ({ structuredContent: { sum: a + b } }),
      }),
      defineTool({
        name: "cancel_order",
        title: "Cancel order",
        description: "Cancel an open order. This cannot be undone.",
        inputSchema: { type: "object", properties: { order_id: ORDER_ID }, required: ["order_id"] },
        annotations: { destructiveHint: true, idempotentHint: true },
        handler: async ({ order_id }, ctx) => {
          const order = find(order_id);
          if (order.status === "shipped") {
            throw new Error(`order '${order_id}' has already shipped`);
          }
          if (!(await confirmCancel(ctx, order_id))) {
            return `Not cancelled: the user did not confirm`;
          }
          order.status = "cancelled";
          server.notifyResourceUpdated(`orders://${order_id}`);
          return `Cancelled ${order_id}`;
        },
      }),
      defineTool({
        name: "report",
        title: "Order report",
        description: "Count orders by status, reporting progress as it goes",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        annotations: { readOnlyHint: true },
        handler: async (_args, ctx) => {
          const counts: Record<string, number> = {};
          const all = [...orders.values()];
          ctx.log("info", { event: "report started", orders: all.length }, "report");
          for (const [index, order] of all.entries()) {
            ctx.signal.throwIfAborted();
            counts[order.status] = (counts[order.status] ?? 0) + 1;
            ctx.progress(index + 1, all.length, `Counted ${order.id}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          ctx.log("info", { event: "report finished", counts }, "report");
          return Object.entries(counts).map(([status, n]) => `${status}: ${n}`).join("\n");
        },
      }),
      defineTool({
        name: "export_orders",
        title: "Export orders",
        description:
          "Export every order as JSON lines. Long-running: runs as a task for clients that support tasks",
        // A task when the client declares the tasks extension, a plain call otherwise.
        task: "optional",
        inputSchema: {
          type: "object",
          properties: {
            status: { type: "string", enum: ["open", "shipped", "cancelled"] },
          },
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
        handler: async ({ status }, ctx) => {
          const chosen = [...orders.values()].filter((o) =>
            status === undefined || o.status === status
          );
          const lines: string[] = [];
          for (const [index, order] of chosen.entries()) {
            ctx.signal.throwIfAborted();
            // Stands in for a slow warehouse lookup per order; a cancel stops the wait.
            await new Promise((resolve, reject) => {
              const timer = setTimeout(resolve, 50);
              ctx.signal.addEventListener("abort", () => {
                clearTimeout(timer);
                reject(ctx.signal.reason);
              }, { once: true });
            });
            lines.push(JSON.stringify(order));
            ctx.progress(index + 1, chosen.length, `Exported ${order.id}`);
          }
          return lines.length === 0 ? "No orders to export" : lines.join("\n");
        },
      }),
    ],
    resources: [
      ...["ORD-1", "ORD-2"].map((id) => ({
        uri: `orders://${id}`,
        name: id,
        description: `Order ${id} as JSON`,
        mimeType: "application/json",
        read: () => find(id),
      })),
      {
        uri: "orders://readme",
        name: "readme",
        title: "How to use the order desk",
        mimeType: "text/markdown",
        read: () => README,
      },
    ],
    resourceTemplates: [{
      uriTemplate: "orders://{id}",
      name: "order",
      title: "Any order by id",
      description: "One order as JSON",
      mimeType: "application/json",
      complete: { id: (prefix) => completeIds(prefix) },
      // No such order: undefined, which the client gets as "not found" in its era's code.
      read: ({ id }) => id === undefined ? undefined : orders.get(id),
    }],
    prompts: [{
      name: "summarize_order",
      title: "Summarize an order",
      description: "Ask the model for a one-paragraph summary of an order",
      arguments: [{
        name: "order_id",
        description: "The order to summarize",
        required: true,
        complete: (prefix) => completeIds(prefix),
      }],
      get: (args: { order_id?: string }) =>
        `Summarize order ${args.order_id} for a customer-service agent in one paragraph. ` +
        `Read it with the get_order tool first.`,
    }],
  });
  addOrderBoard(server, orders);
  return server;
}

/** The order board view: plain HTML and script beside this file, read on each request. */
const BOARD_HTML = new URL("./apps/order_board.html", import.meta.url);

/** The desk's skill: how to work it with its tools. */
export const ORDER_DESK_SKILL: URL = new URL("./skills/order-desk", import.meta.url);

/**
 * The order board (MCP Apps): a view listing the book, opened by hosts that
 * render apps, and `list_orders`, the app-only tool it loads the book with
 * (hidden from the model, and from clients that host no apps). The view
 * calls `get_order` too, which stays visible to everyone.
 */
function addOrderBoard(server: Server, orders: Map<string, Order>): void {
  server.app({
    uri: "ui://order-desk/board",
    name: "order-board",
    title: "Order board",
    description: "Every order in the book, with a refresh button per order",
    html: async () => {
      const { readFile } = await import("node:fs/promises");
      return await readFile(BOARD_HTML, "utf8");
    },
    // The view loads nothing from elsewhere: no origin is declared.
    csp: {},
    prefersBorder: true,
    appTools: [
      defineTool({
        name: "list_orders",
        title: "List orders",
        description: "Every order's id, customer and status, for the order board",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        outputSchema: {
          type: "object",
          properties: {
            orders: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  id: { type: "string" },
                  customer: { type: "string" },
                  status: { type: "string" },
                },
                required: ["id", "customer", "status"],
              },
            },
          },
          required: ["orders"],
        },
        annotations: { readOnlyHint: true },
        handler: () => ({
          structuredContent: {
            orders: [...orders.values()].map(({ id, customer, status }) => ({
              id,
              customer,
              status,
            })),
          },
        }),
      }),
    ],
  });
}

if (import.meta.main) {
  const setup = await serverSetup({ name: "order-desk", version: "0.1.0" });
  const { http, ...options } = setup;
  // The endpoint's options go to the server too: --auth-issuer's OAuth lives there.
  const server = createOrderDesk(http === undefined ? options : { ...options, http });
  try {
    server.skill(await loadSkill({ directory: ORDER_DESK_SKILL }));
  } catch (error) {
    // The desk still serves without its skill (e.g. run without --allow-read).
    console.error(`order-desk: skill not published: ${(error as Error).message}`);
  }
  const summary =
    `tools: get_order, add, cancel_order, report, export_orders; ${setup.guardrails.length} guardrails`;
  if (http === undefined) {
    console.error(`order-desk: ready on stdio (${summary})`);
    await serveStdio(server);
  } else {
    const listener = await serveHttp(server, http);
    console.error(`order-desk: ready on ${listener.url} (${summary})`);
  }
}
