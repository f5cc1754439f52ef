/**
 * The order board in a real browser: headless Chromium loads a fake host
 * page that embeds the board's HTML (read from the desk with
 * resources/read) in a sandboxed iframe, answers `ui/initialize` itself
 * and forwards `tools/call` to a real Warden server. The board must load,
 * call `list_orders` and render the book. Driven over the DevTools protocol
 * from Deno; skipped with a notice when Chromium is not installed.
 */

import assert from "node:assert/strict";
import { createOrderDesk } from "../../../examples/orders.ts";
import { modernRequest, resultOf } from "../../_helpers/helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const UI = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};

let present = false;
try {
  present = Deno.statSync(CHROMIUM).isFile;
} catch {
  console.error(`board_browser_test: ${CHROMIUM} not found; the browser test is skipped`);
}

/** The host page: an iframe for the view, and a bridge to Deno through a DevTools binding. */
const HOST_PAGE = `<!DOCTYPE html><html><body><script>
const frame = document.createElement("iframe");
frame.sandbox = "allow-scripts";
window.addEventListener("message", (event) => {
  if (event.source === frame.contentWindow) hostSend(JSON.stringify(event.data));
});
window.deliver = (message) => frame.contentWindow.postMessage(message, "*");
window.mount = (html) => { frame.srcdoc = html; document.body.append(frame); };
</script></body></html>`;

/** A DevTools protocol connection to one page. */
class Cdp {
  #socket: WebSocket;
  #next = 1;
  #waiting = new Map<number, (message: Record<string, unknown>) => void>();
  readonly events: ((message: Record<string, unknown>) => void)[] = [];

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      const waiter = this.#waiting.get(message.id);
      if (waiter !== undefined) {
        this.#waiting.delete(message.id);
        waiter(message);
      } else for (const listener of this.events) listener(message);
    };
  }

  static async open(url: string): Promise<Cdp> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    return new Cdp(socket);
  }

  async send(
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const id = this.#next++;
    const reply = new Promise<Record<string, unknown>>((resolve) => this.#waiting.set(id, resolve));
    this.#socket.send(JSON.stringify({ id, method, params }));
    const message = await reply;
    if (message.error !== undefined) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message.result as Record<string, unknown>;
  }

  close(): void {
    this.#socket.close();
  }
}

/** Reads stderr until Chromium prints its DevTools port. */
async function devtoolsPort(stderr: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`chromium exited:\n${seen}`);
    seen += value;
    const match = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(seen);
    if (match !== null) {
      reader.releaseLock();
      stderr.pipeTo(new WritableStream()).catch(() => {});
      return Number(match[1]);
    }
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test({
  name:
    "the order board renders in headless Chromium and calls list_orders through the host bridge",
  ignore: !present,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const desk = createOrderDesk();
    const read = resultOf(
      await desk.handle(modernRequest(1, "resources/read", { uri: "ui://order-desk/board" }, UI)),
    );
    const html = (read.contents as { text: string }[])[0]!.text;
    const host = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(HOST_PAGE, { headers: { "content-type": "text/html" } }),
    );
    const profile = await Deno.makeTempDir({ prefix: "warden-chromium-" });
    const browser = new Deno.Command(CHROMIUM, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        // Keeps the sandboxed view in the page's process, so its frame shows in the page's tree.
        "--disable-features=IsolateSandboxedIframes",
        `--user-data-dir=${profile}`,
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        "about:blank",
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let cdp: Cdp | undefined;
    try {
      const port = await devtoolsPort(browser.stderr);
      const targets: { type: string; webSocketDebuggerUrl: string }[] = await (await fetch(
        `http://127.0.0.1:${port}/json/list`,
      )).json();
      const page = targets.find((target) => target.type === "page");
      assert.ok(page !== undefined, "a page target");
      cdp = await Cdp.open(page.webSocketDebuggerUrl);
      const calls: string[] = [];
      const session = cdp;
      // The fake host: ui/initialize answered here, tools/call forwarded to the desk.
      session.events.push((event) => {
        if (event.method !== "Runtime.bindingCalled") return;
        const message = JSON.parse((event.params as { payload: string }).payload);
        if (message.id === undefined) return;
        const answer = async (): Promise<unknown> => {
          if (message.method === "ui/initialize") {
            return {
              jsonrpc: "2.0",
              id: message.id,
              result: {
                protocolVersion: "2026-01-26",
                hostInfo: { name: "fake-host", version: "1.0.0" },
                hostCapabilities: { serverTools: {} },
                hostContext: {},
              },
            };
          }
          calls.push(`${message.method} ${message.params?.name ?? ""}`);
          const reply = await desk.handle(
            modernRequest(message.id, message.method, message.params ?? {}, UI),
          ) as Record<string, unknown>;
          return { ...reply, id: message.id };
        };
        void answer().then((reply) =>
          session.send("Runtime.evaluate", { expression: `deliver(${JSON.stringify(reply)})` })
        );
      });
      await session.send("Runtime.enable");
      await session.send("Page.enable");
      await session.send("Runtime.addBinding", { name: "hostSend" });
      await session.send("Page.navigate", { url: `http://127.0.0.1:${host.addr.port}/` });
      await until("the host page", async () => {
        const { result } = await session.send("Runtime.evaluate", {
          expression: "typeof mount",
          returnByValue: true,
        }) as { result: { value: string } };
        return result.value === "function" ? true : undefined;
      });
      await session.send("Runtime.evaluate", { expression: `mount(${JSON.stringify(html)})` });
      await until("list_orders", () => Promise.resolve(calls.length > 0 ? true : undefined));
      assert.deepEqual(calls, ["tools/call list_orders"]);
      // What the board shows, read inside its own frame.
      const status = await until("the rendered board", async () => {
        const tree = await session.send("Page.getFrameTree") as {
          frameTree: { childFrames?: { frame: { id: string } }[] };
        };
        const child = tree.frameTree.childFrames?.[0]?.frame.id;
        if (child === undefined) return undefined;
        const world = await session.send("Page.createIsolatedWorld", { frameId: child }) as {
          executionContextId: number;
        };
        const { result } = await session.send("Runtime.evaluate", {
          contextId: world.executionContextId,
          expression:
            "[document.getElementById('status').textContent, document.querySelectorAll('#orders tr').length]",
          returnByValue: true,
        }) as { result: { value: [string, number] } };
        return result.value[1] > 0 ? result.value : undefined;
      });
      assert.deepEqual(status, ["2 orders", 2]);
    } finally {
      cdp?.close();
      browser.kill("SIGKILL");
      await browser.status;
      await host.shutdown();
      await desk.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    }
  },
});
