import assert from "node:assert/strict";
import { compileUriTemplate } from "../../src/core/uri_template.ts";

type Values = Record<string, string>;

Deno.test("compileUriTemplate() refuses invalid templates with the reason and its index", () => {
  const cases: [template: string, reason: string][] = [
    ["orders://{id", "unclosed '{' at 9"],
    ["orders://id}", "unmatched '}' at 11"],
    ["a{b}c}", "unmatched '}' at 5"],
    ["a{b{c}}", "unexpected '{' at 3"],
    ["{}", "empty variable name at 1"],
    ["{+}", "empty variable name at 2"],
    ["{a,}", "empty variable name at 3"],
    ["{,a}", "unsupported operator ',' at 1"],
    ["{a-b}", "invalid character '-' in variable name at 2"],
    ["{a b}", "invalid character ' ' in variable name at 2"],
    ["{é}", "invalid character 'é' in variable name at 1"],
    ["{.a.}", "invalid character '.' in variable name at 3"],
    ["{a..b}", "invalid character '.' in variable name at 2"],
    ["{a,.b}", "invalid character '.' in variable name at 3"],
    ["{%4}", "invalid percent-encoding in variable name at 1"],
    ["{%zz}", "invalid percent-encoding in variable name at 1"],
    ["{=a}", "unsupported operator '=' at 1"],
    ["{!a}", "unsupported operator '!' at 1"],
    ["{@a}", "unsupported operator '@' at 1"],
    ["{|a}", "unsupported operator '|' at 1"],
    ["{id:3}", "unsupported prefix modifier ':3' at 3"],
    ["{/list*}", "unsupported explode modifier '*' at 6"],
    ["{id}/{id}", "duplicate variable name 'id' at 6"],
    ["{?a,b,a}", "duplicate variable name 'a' at 6"],
  ];
  for (const [template, reason] of cases) {
    assert.throws(() => compileUriTemplate(template), {
      name: "TypeError",
      message: `Invalid URI template '${template}': ${reason}`,
    }, template);
  }
  assert.throws(() => Reflect.apply(compileUriTemplate, undefined, [42]), {
    name: "TypeError",
    message: "Invalid URI template: expected a string, got number",
  });
});

Deno.test("compileUriTemplate() lists the variables in order and keeps the template", () => {
  const cases: [template: string, variables: string[]][] = [
    ["docs://readme", []],
    ["", []],
    ["orders://{id}", ["id"]],
    ["users/{user}/repos/{repo}", ["user", "repo"]],
    ["search{?q,page}{#section}", ["q", "page", "section"]],
    ["{a.b}{_1}{%41x}", ["a.b", "_1", "%41x"]],
  ];
  for (const [template, variables] of cases) {
    const compiled = compileUriTemplate(template);
    assert.equal(compiled.template, template);
    assert.deepEqual(compiled.variables, variables);
    assert.ok(Object.isFrozen(compiled.variables));
  }
});

Deno.test("UriTemplate.match() extracts decoded variables or reports no match", () => {
  const cases: [template: string, uri: string, expected: Values | undefined][] = [
    ["orders://{id}", "orders://42", { id: "42" }],
    ["orders://{id}", "orders://ORD-1_a.b~c", { id: "ORD-1_a.b~c" }],
    ["orders://{id}", "orders://", undefined],
    ["orders://{id}", "orders://42/items", undefined],
    ["orders://{id}", "orders://42?x=1", undefined],
    ["orders://{id}", "orders://42#top", undefined],
    ["orders://{id}", "Orders://42", undefined],
    ["orders://{id}", "orders:/42", undefined],
    ["orders://{id}", "xorders://42", undefined],
    ["orders://{id}", "orders://a%20b", { id: "a b" }],
    ["orders://{id}", "orders://a%2Fb", { id: "a/b" }],
    ["orders://{id}", "orders://%E2%98%95", { id: "☕" }],
    ["orders://{id}", "orders://a,b;c=d", { id: "a,b;c=d" }],
    ["orders://{id}", "orders://%FF", undefined],
    ["orders://{id}", "orders://%E2%98", undefined],
    ["orders://{id}", "orders://%zz", undefined],
    ["orders://{id}", "orders://100%", undefined],
    ["files://{+path}", "files://a/b/c.txt", { path: "a/b/c.txt" }],
    ["files://{+path}", "files:///etc/hosts", { path: "/etc/hosts" }],
    ["files://{+path}", "files://a%20b/c%3Fd", { path: "a b/c?d" }],
    ["files://{+path}", "files://", undefined],
    ["files://{+path}", "files://a/b?raw=1", undefined],
    ["files://{+path}", "files://a/b#top", undefined],
    ["files://{+path}", "FILES://a/b", undefined],
    ["files://{+path}.txt", "files://a.txt.txt", { path: "a.txt" }],
    ["test://template/{id}/data", "test://template/7/data", { id: "7" }],
    ["test://template/{id}/data", "test://template/7/data/extra", undefined],
    ["test://template/{id}/data", "test://template//data", undefined],
    ["test://template/{id}/data", "test://template/7", undefined],
    ["test://template/{id}/data", "test://template/7/8/data", undefined],
    ["test://template/{id}/data", "test://template/7/DATA", undefined],
    ["users/{user}/repos/{repo}", "users/ada/repos/engine", { user: "ada", repo: "engine" }],
    ["users/{user}/repos/{repo}", "users/ada/repos/", undefined],
    ["users/{user}/repos/{repo}", "users/ada/repos", undefined],
    ["users/{user}/repos/{repo}", "users/ada/repos/engine/", undefined],
    ["users/{user}/repos/{repo}", "users//repos/engine", undefined],
    ["users/{user}/repos/{repo}", "users/ada/Repos/engine", undefined],
    ["pair://{a,b}", "pair://1,2", { a: "1", b: "2" }],
    ["pair://{a,b}", "pair://1,%2C", { a: "1", b: "," }],
    ["pair://{a,b}", "pair://1", undefined],
    ["pair://{a,b}", "pair://1,", undefined],
    ["pair://{a,b}", "pair://1,2,3", undefined],
    ["pair://{+a,b}", "pair://x/y,z", { a: "x/y", b: "z" }],
    ["search{?q,page}", "search?q=mcp&page=2", { q: "mcp", page: "2" }],
    ["search{?q,page}", "search?q=a/b?c&page=2", { q: "a/b?c", page: "2" }],
    ["search{?q,page}", "search?page=2&q=mcp", undefined],
    ["search{?q,page}", "search?q=mcp", undefined],
    ["search{?q,page}", "search?q=&page=2", undefined],
    ["search?lang=en{&q}", "search?lang=en&q=x", { q: "x" }],
    ["doc{#section}", "doc#intro/part?2", { section: "intro/part?2" }],
    ["doc{#section}", "doc#a#b", undefined],
    ["file{.ext}", "file.tar.gz", { ext: "tar.gz" }],
    ["host{.a,b}", "host.x.y", { a: "x", b: "y" }],
    ["host{.a,b}", "host.x.y.z", undefined],
    ["root{/dir,name}", "root/a/b", { dir: "a", name: "b" }],
    ["root{/dir,name}", "root/a", undefined],
    ["map{;x,y}", "map;x=1;y=2", { x: "1", y: "2" }],
    ["map{;x,y}", "map;x=1;y", undefined],
    ["{+a}/{+b}", "x/y/z", { a: "x/y", b: "z" }],
    ["{a}{b}", "abc", { a: "ab", b: "c" }],
    ["docs://readme", "docs://readme", {}],
    ["docs://readme", "docs://readme2", undefined],
    ["docs://my%20file/{id}", "docs://my%20file/1", { id: "1" }],
    ["docs://my%20file/{id}", "docs://my file/1", undefined],
  ];
  for (const [template, uri, expected] of cases) {
    assert.deepEqual(compileUriTemplate(template).match(uri), expected, `${template} ~ ${uri}`);
  }
});

Deno.test("UriTemplate.match() never throws on hostile input", () => {
  const template = compileUriTemplate("x://{a}/{+b}");
  const uris = [
    "x://%/b",
    "x://a/%",
    "x://%C0%80/b",
    "x://a/%ED%A0%80",
    "x://\uD800/b",
    "x://a/\uDC00",
  ];
  for (const uri of uris) {
    assert.equal(template.match(uri), undefined, uri);
  }
  assert.deepEqual(template.match("x://%F0%9F%8E%89/🎉"), { a: "🎉", b: "🎉" });
  for (const uri of [42, null, undefined, {}]) {
    assert.equal(Reflect.apply(template.match, template, [uri]), undefined);
  }
});

Deno.test("UriTemplate.expand() encodes per operator and skips undefined values", () => {
  const values = {
    who: "fred",
    dub: "me/too",
    hello: "Hi there!",
    half: "50%",
    base: "http://ex.org/home/",
    x: "1024",
    y: "768",
    empty: "",
    undef: undefined,
    tricky: "a?b#c,d",
    dotted: "a.b",
    unicode: "café ☕",
  };
  const cases: [template: string, expected: string][] = [
    ["{who}", "fred"],
    ["{dub}", "me%2Ftoo"],
    ["{hello}", "Hi%20there%21"],
    ["{half}", "50%25"],
    ["{unicode}", "caf%C3%A9%20%E2%98%95"],
    ["{+hello}", "Hi%20there!"],
    ["{+dub}", "me/too"],
    ["{+half}", "50%25"],
    ["{+base}index", "http://ex.org/home/index"],
    ["{+tricky}", "a%3Fb%23c,d"],
    ["{+tricky,x}", "a%3Fb%23c%2Cd,1024"],
    ["{#hello}", "#Hi%20there!"],
    ["{#tricky}", "#a?b%23c,d"],
    ["X{.who}", "X.fred"],
    ["X{.x,y}", "X.1024.768"],
    ["X{.dotted}", "X.a.b"],
    ["X{.dotted,x}", "X.a%2Eb.1024"],
    ["{/who,dub}", "/fred/me%2Ftoo"],
    ["{;x,y,empty}", ";x=1024;y=768;empty"],
    ["{?x,y,empty}", "?x=1024&y=768&empty="],
    ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
    ["{x,undef,y}", "1024,768"],
    ["{x,empty}", "1024,"],
    ["{empty}", ""],
    ["a{undef}b", "ab"],
    ["{?undef}", ""],
    ["{#undef,missing}", ""],
    ["{toString}/{constructor}", "/"],
  ];
  for (const [template, expected] of cases) {
    assert.equal(compileUriTemplate(template).expand(values), expected, template);
  }
});

Deno.test("UriTemplate.expand() refuses values that are not strings or not well-formed", () => {
  const template = compileUriTemplate("orders://{id}");
  assert.throws(() => template.expand(JSON.parse('{"id": 7}')), {
    name: "TypeError",
    message:
      "Cannot expand URI template 'orders://{id}': value of 'id' must be a string, got number",
  });
  assert.throws(() => template.expand({ id: "\uD800" }), {
    name: "TypeError",
    message: "Cannot expand URI template 'orders://{id}': value of 'id' is not well-formed Unicode",
  });
  assert.throws(() => Reflect.apply(template.expand, template, [null]), {
    name: "TypeError",
    message: "Cannot expand URI template 'orders://{id}': expected an object of values",
  });
});

Deno.test("UriTemplate.match() reads back what expand() wrote", () => {
  const templates = [
    "orders://{id}",
    "files://{+path}",
    "test://template/{id}/data",
    "users/{user}/repos/{repo}",
    "pair://{a,b}",
    "pair://{+a,b}",
    "search{?q,page}",
    "search?lang=en{&q}",
    "doc{#section}",
    "root{/dir,name}",
    "map{;x,y}",
    "host{.a,b}",
  ];
  const samples = [
    "plain",
    "with space",
    "a/b/c",
    "100%",
    "%41%zz",
    "über ☕ 🎉",
    "a,b;c=d&e",
    "a?b#c",
    "a.b.c",
    "+!*'()[]@$:",
  ];
  for (const text of templates) {
    const template = compileUriTemplate(text);
    for (const [index, sample] of samples.entries()) {
      // Give each variable a different sample so that swapped values would show.
      const values: Values = {};
      for (const [offset, name] of template.variables.entries()) {
        values[name] = samples[(index + offset) % samples.length] ?? sample;
      }
      const uri = template.expand(values);
      assert.deepEqual(template.match(uri), values, `${text} -> ${uri}`);
    }
  }
});

Deno.test("UriTemplate.match() takes linear time on 100 000-character URIs", () => {
  // Linear means 10x the input costs about 10x the time; a backtracking
  // matcher's polynomial blow-up shows as 100x or more. Comparing the two
  // sizes on the same machine keeps the test meaningful under any load.
  const time = (template: ReturnType<typeof compileUriTemplate>, uri: string): number => {
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const start = performance.now();
      template.match(uri);
      best = Math.min(best, performance.now() - start);
    }
    return best;
  };
  const n = 100_000;
  // Each of these makes a backtracking matcher try a polynomial number of splits.
  const casesOf = (n: number): [template: string, uri: string, matches: boolean][] => [
    ["u/{a}-{b}-{c}/x", `u/${"-".repeat(n)}/-----/x`, false],
    ["u/{a}-{b}-{c}/x", `u/${"-".repeat(n)}/x`, true],
    ["users/{a}-{b}-{c}/x/{+d}.{e}", `users/${"-".repeat(n)}/`, false],
    ["users/{a}-{b}-{c}/x/{+d}.{e}", `users/${"-".repeat(n)}/x/p.q`, true],
    ["{a}{b}{c}{d}{e}", `${"a".repeat(n)}/`, false],
    ["{a}{b}{c}{d}{e}", "a".repeat(n), true],
    ["files://{+path}/{+dir}/{name}", `files://${"/".repeat(n)}?`, false],
    ["files://{+path}/{+dir}/{name}", `files://${"a/".repeat(n / 2)}`, false],
    ["pair://{a,b}/{c,d}", `pair://${"x,".repeat(n / 2)}x/x,x`, false],
    ["search{?q,page}{&x,y}", `search?q=${"&q=".repeat(n / 3)}`, false],
    ["{+a}.{+b}.{+c}.{+d}", `${".".repeat(n)}?`, false],
    ["{+a}.{+b}.{+c}.{+d}", ".".repeat(n), true],
  ];
  const tenth = casesOf(n / 10);
  for (const [index, [text, uri, matches]] of casesOf(n).entries()) {
    const template = compileUriTemplate(text);
    assert.equal(template.match(uri) !== undefined, matches, text);
    const small = time(template, tenth[index]?.[1] ?? "");
    const large = time(template, uri);
    assert.ok(
      large < 30 * small + 20,
      `${text}: ${large.toFixed(1)} ms at full size, ${small.toFixed(1)} ms at a tenth`,
    );
  }
  const found = compileUriTemplate("users/{a}-{b}-{c}/x/{+d}.{e}")
    .match(`users/${"-".repeat(n)}/x/p.q`);
  assert.deepEqual(found, { a: "-".repeat(n - 4), b: "-", c: "-", d: "p", e: "q" });
});

Deno.test("UriTemplate.match() keeps '__proto__' and friends as plain keys", () => {
  const template = compileUriTemplate("users/{__proto__}/{constructor}{?toString}");
  const found = template.match("users/evil/ctor?toString=x");
  assert.ok(found !== undefined);
  assert.equal(Object.getPrototypeOf(found), Object.prototype);
  assert.deepEqual(Object.keys(found), ["__proto__", "constructor", "toString"]);
  assert.equal(Object.getOwnPropertyDescriptor(found, "__proto__")?.value, "evil");
  assert.equal(found["constructor"], "ctor");
  assert.equal(Object.hasOwn(Object.prototype, "evil"), false);
  const values: Values = JSON.parse('{"__proto__": "a b", "constructor": "c", "toString": "d"}');
  assert.equal(template.expand(values), "users/a%20b/c?toString=d");
  assert.deepEqual(template.match(template.expand(values)), values);
  // Inherited members are not values: `{}` has no own `__proto__` or `constructor`.
  assert.equal(template.expand({}), "users//");
});
