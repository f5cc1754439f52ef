/**
 * `ctx.elicit()` and `ctx.elicitUrl()` against scripted clients at each
 * revision: the forms sent verbatim, `mode` only from 2025-11-25, answers
 * checked against the form, the capabilities each mode needs, and URL-mode
 * ids and completion notifications.
 */

import assert from "node:assert/strict";
import { resultOf } from "../_helpers/helpers.ts";
import { type Answer, connectPeer, type Message, onlyText } from "../_helpers/revision_peer.ts";
import {
  elicitingServer,
  SEP1034_ANSWER,
  SEP1034_FORM,
  SEP1330_ANSWER,
  SEP1330_FORM,
} from "../_helpers/eliciting_server.ts";

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
