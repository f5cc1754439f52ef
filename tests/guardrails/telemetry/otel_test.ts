// OpenTelemetry through Deno's built-in support (issue 17): a real server process with
// OTEL_DENO=true exporting OTLP/HTTP JSON to a receiver in this test, on loopback.
import assert from "node:assert/strict";
import { postModern, type ScaleInstance, startScaleServer } from "../../_helpers/scale_instance.ts";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN = "b7ad6b7169203331";

interface Received {
  traces: unknown[];
  metrics: unknown[];
  logs: unknown[];
}

/** Every log record in the OTLP JSON exports received. */
function logRecords(exports: unknown[]): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (Array.isArray(record.logRecords)) found.push(...record.logRecords);
      else Object.values(record).forEach(visit);
    }
  };
  visit(exports);
  return found;
}

/** Every span object in the OTLP JSON exports received. */
function spans(exports: unknown[]): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record.spanId === "string" && typeof record.name === "string") found.push(record);
      Object.values(record).forEach(visit);
    }
  };
  visit(exports);
  return found;
}

/** The metric names in the OTLP JSON exports received. */
function metricNames(exports: unknown[]): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record.name === "string" && ("sum" in record || "histogram" in record)) {
        names.add(record.name);
      }
      Object.values(record).forEach(visit);
    }
  };
  visit(exports);
  return names;
}

function attribute(span: Record<string, unknown>, key: string): unknown {
  const list = Array.isArray(span.attributes) ? span.attributes : [];
  const entry = list.find((item) => item?.key === key);
  const value = entry?.value ?? {};
  return value.stringValue ?? value.intValue ?? value.doubleValue;
}

Deno.test({
  name:
    "OTEL_DENO=true: spans parented from _meta, metrics, and the audit log as correlated log records",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const received: Received = { traces: [], metrics: [], logs: [] };
    const receiver = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (request) => {
        const body = await request.json().catch(() => null);
        const path = new URL(request.url).pathname;
        if (path === "/v1/traces") received.traces.push(body);
        if (path === "/v1/metrics") received.metrics.push(body);
        if (path === "/v1/logs") received.logs.push(body);
        return Response.json({});
      },
    );
    const dir = await Deno.makeTempDir();
    const policy = `${dir}/policy.json`;
    await Deno.writeTextFile(
      policy,
      JSON.stringify({
        rateLimit: {
          rules: [{ scope: "tool", match: ["get_order"], capacity: 1, refillPerSecond: 0.001 }],
        },
        audit: "otel",
      }),
    );
    let server: ScaleInstance | undefined;
    try {
      server = await startScaleServer(["--policy", policy], {
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_METRIC_EXPORT_INTERVAL: "200",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_SERVICE_NAME: "warden-test",
      });
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
        traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`,
        tracestate: "vendor=value",
      };
      for (let i = 0; i < 2; i++) {
        const params = { name: "get_order", arguments: { id: "1" } };
        const response = await postModern(server.url, "tools/call", params, meta, { id: i });
        await response.body?.cancel();
      }
      let calls: Record<string, unknown>[] = [];
      for (let i = 0; i < 100; i++) {
        calls = spans(received.traces).filter((span) => span.name === "tools/call get_order");
        const names = metricNames(received.metrics);
        const audited = logRecords(received.logs).filter((record) =>
          JSON.stringify(record.body ?? "").includes("warden.audit")
        );
        if (
          audited.length === 2 && calls.length === 2 && names.has("warden.calls") &&
          names.has("warden.refusals") &&
          names.has("warden.call.duration")
        ) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(calls.length, 2, JSON.stringify(received.traces).slice(0, 2000));
      for (const span of calls) {
        assert.equal(span.traceId, TRACE_ID);
        assert.equal(span.parentSpanId, PARENT_SPAN);
        assert.equal(attribute(span, "warden.item.name"), "get_order");
      }
      const outcomes = calls.map((span) => attribute(span, "warden.outcome")).sort();
      assert.deepEqual(outcomes, ["ok", "rate_limited"]);
      const refused = calls.find((span) => attribute(span, "warden.outcome") === "rate_limited");
      assert.equal(Number(refused && attribute(refused, "rpc.jsonrpc.error_code")), -31002);
      // The audit log arrives as log records, each in the trace of its call's span.
      const audited = logRecords(received.logs).filter((record) =>
        JSON.stringify(record.body ?? "").includes("warden.audit")
      );
      assert.equal(audited.length, 2, JSON.stringify(received.logs).slice(0, 2000));
      const spanIds = new Set(calls.map((span) => span.spanId));
      for (const record of audited) {
        assert.equal(record.traceId, TRACE_ID);
        assert.ok(spanIds.has(record.spanId), `log record span ${record.spanId} is no call span`);
      }
      const bodies = audited.map((record) => JSON.stringify(record.body)).join("\n");
      assert.match(bodies, /rate_limited/);
      const names = metricNames(received.metrics);
      for (const name of ["warden.calls", "warden.refusals", "warden.call.duration"]) {
        assert.ok(names.has(name), `${name} missing from ${[...names]}`);
      }
    } finally {
      await server?.stop();
      await receiver.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
