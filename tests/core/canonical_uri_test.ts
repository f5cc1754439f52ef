/**
 * canonicalUri(): the RFC 3986 §6.2.2 normalisation every resource decision
 * is made on, what it refuses, and its properties over generated spellings.
 */

import assert from "node:assert/strict";
import { canonicalUri, decodedUri, foldedHost } from "../../src/core/canonical_uri.ts";
import { createServer } from "../../mod.ts";
import { randomSpelling, seededRandom, UNRESERVED } from "../_helpers/uri_spellings.ts";

Deno.test("canonicalUri() normalises as RFC 3986 §6.2.2 says", () => {
  const cases: [string, string][] = [
    ["file:///data/%73ecret.txt", "file:///data/secret.txt"],
    ["file:///data/%7euser/%7Eother", "file:///data/~user/~other"],
    ["FILE:///data/x", "file:///data/x"],
    ["Orders://ORD-1", "orders://ORD-1"],
    ["orders://ORD-1", "orders://ORD-1"],
    ["HTTPS://Docs.Example:443/Page", "https://docs.example:443/Page"],
    ["https://%41pi.example/", "https://api.example/"],
    ["x://h/a%2cb%e2%82%ac", "x://h/a%2Cb%E2%82%AC"],
    ["file:///data/x/../secret.txt", "file:///data/secret.txt"],
    ["file:///data/./a/./b", "file:///data/a/b"],
    ["file:///../../etc/passwd", "file:///etc/passwd"],
    ["file:///a/b/..", "file:///a/"],
    ["file:///a/b/.", "file:///a/b/"],
    ["x://h/a/..b/.c", "x://h/a/..b/.c"],
    ["x://h/p?q=%2f&r=%41#F%7e", "x://h/p?q=%2F&r=A#F~"],
    ["x://h/p?x=/../y", "x://h/p?x=/../y"],
    ["test://héllo wörld", "test://héllo wörld"],
    ["relative/../path", "path"],
    // A rootless path's dot segments go whatever the scheme's case (the lower-case spelling
    // once kept them, so `notes:./secret` and `Notes:./secret` were two names).
    ["notes:./secret", "notes:secret"],
    ["Notes:./secret", "notes:secret"],
    ["file:../etc/passwd", "file:etc/passwd"],
  ];
  for (const [uri, canonical] of cases) assert.equal(canonicalUri(uri), canonical, uri);
});

Deno.test("canonicalUri() refuses what cannot be normalised safely, without echoing it", () => {
  const cases: [string, RegExp][] = [
    ["x://h/a%00", /NUL/],
    ["x://h/a%2Fb", /path separator/],
    ["x://h/a%2fb", /path separator/],
    ["x://h/a%5Cb", /path separator/],
    ["x://h%2F/a", /path separator/],
    ["x://h/a\\b", /backslash/],
    ["x://h/a\u0000b", /control/],
    ["x://h/a\nb", /control/],
    ["x://h/a\u007fb", /control/],
    ["x://h/%2E%2E/secret", /dot segment/],
    ["x://h/a/%2e/b", /dot segment/],
    ["x://h/a/.%2E", /dot segment/],
    ["x://h/a/%2E./../b", /dot segment/],
    ["x://h/%", /invalid percent-escape/],
    ["x://h/%4", /invalid percent-escape/],
    ["x://h/%zz", /invalid percent-escape/],
    ["x://h/%FF", /not UTF-8/],
    ["x://h/%C3", /not UTF-8/],
    ["x://h/%ED%A0%80", /not UTF-8/],
    ["x://h/\ud800", /surrogate/],
  ];
  for (const [uri, reason] of cases) {
    const result = canonicalUri(uri);
    assert.ok(typeof result !== "string", `${JSON.stringify(uri)} was accepted as ${result}`);
    assert.match(result.refused, reason, uri);
    assert.ok(!result.refused.includes("x://"), "the reason never echoes the URI");
  }
});

Deno.test("canonicalUri() keeps a template's expressions and normalises its literal text", () => {
  assert.equal(canonicalUri("FILE:///d%61ta/{+path}", true), "file:///data/{+path}");
  assert.equal(
    canonicalUri("HTTPS://Docs.Example/{Page}{?q,R}", true),
    "https://docs.example/{Page}{?q,R}",
  );
  assert.equal(canonicalUri("orders://{id}", true), "orders://{id}");
  const removed = canonicalUri("x://h/{a}/../{b}", true);
  assert.ok(typeof removed !== "string" && /template expression/.test(removed.refused));
  assert.ok(typeof canonicalUri("x://h/\uE000{a}", true) !== "string");
});

Deno.test("canonicalUri() returns a canonical URI itself, and is idempotent over random spellings", () => {
  const uri = "orders://ORD-1";
  assert.equal(canonicalUri(uri), uri);
  const random = seededRandom(22);
  const targets = [
    "file:///data/secret.txt",
    "https://docs.example/a/b-c_d~e.html",
    "notes://internal/memo",
    "x://h/é/€?q=1#f",
  ];
  for (const target of targets) {
    for (let round = 0; round < 300; round++) {
      const { uri: spelt, refuse } = randomSpelling(target, random, { hostCase: true });
      const canonical = canonicalUri(spelt);
      if (refuse) {
        assert.ok(typeof canonical !== "string", `${spelt} should be refused`);
        continue;
      }
      assert.ok(typeof canonical === "string", `${spelt}: ${JSON.stringify(canonical)}`);
      assert.equal(canonicalUri(canonical), canonical, `not idempotent on ${spelt}`);
      const same = (uri: string) => decodedUri(foldedHost(uri));
      assert.equal(same(canonical), same(canonicalUri(target) as string), spelt);
    }
  }
});

Deno.test("canonicalUri() decodes every unreserved character in either hex case", () => {
  for (const char of UNRESERVED) {
    const hex = char.charCodeAt(0).toString(16);
    for (const spelt of [hex.toLowerCase(), hex.toUpperCase()]) {
      assert.equal(canonicalUri(`x://h/a%${spelt}b`), `x://h/a${char}b`);
    }
  }
});

Deno.test("decodedUri() and foldedHost() give the forms the access policy also decides on", () => {
  assert.equal(decodedUri("x://h/a%2Cb%20c%E2%82%AC"), "x://h/a,b c€");
  assert.equal(decodedUri("x://h/plain"), "x://h/plain");
  assert.equal(foldedHost("notes://INTERNAL/Memo"), "notes://internal/Memo");
  // A `://` after the scheme's own is in the path or query: nothing there is a host.
  assert.equal(foldedHost("notes:a?u=http://EVIL/x"), "notes:a?u=http://EVIL/x");
  assert.equal(foldedHost("notes:/A/B://C"), "notes:/A/B://C");
  assert.equal(foldedHost("notes://In%C3%A9/x"), "notes://in%C3%A9/x");
  assert.equal(foldedHost("no-authority"), "no-authority");
});

Deno.test("registration refuses a resource URI or template that is not canonical", () => {
  const server = createServer({ name: "s", version: "1.0.0" });
  assert.throws(
    () => server.resource({ uri: "FILE:///data/x", name: "x", read: () => "" }),
    /not in canonical form.*"file:\/\/\/data\/x"/,
  );
  assert.throws(
    () => server.resource({ uri: "x://h/a%2Fb", name: "x", read: () => "" }),
    /path separator/,
  );
  assert.throws(
    () =>
      server.resourceTemplate({ uriTemplate: "file:///d%61ta/{+path}", name: "t", read: () => "" }),
    /"file:\/\/\/data\/\{\+path\}"/,
  );
  server.resource({ uri: "orders://ORD-1", name: "order", read: () => "" });
  server.resourceTemplate({
    uriTemplate: "https://docs.example/{+page}",
    name: "docs",
    read: () => "",
  });
});
