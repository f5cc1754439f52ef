/**
 * Generated code for the object keywords, mirroring `_objects.ts`: the same
 * verdicts, and the same violations in the same order.
 *
 * A property counts as present when `for...in` lists it with a value that
 * is not `undefined`, as in the closures, and reports walk the keys with
 * `for...in` so that violations come in the value's key order. Where nothing
 * applies to unnamed keys, the yes/no pass (and a report in which only one
 * property can fail) reads the named properties directly instead, one
 * inline-cached load each, but only on plain objects (whose `constructor` is
 * `Object`) and for names `Object.prototype` lacks. There a direct read and
 * `for...in` agree, except on an own property that is not enumerable, which
 * only `Object.defineProperty` makes. (`Object.getPrototypeOf` would tell
 * plain objects exactly, but costs a runtime call once a site has seen two
 * shapes.)
 *
 * @module
 */

import {
  dependentRequiredMessage,
  fewerMessage,
  moreMessage,
  requiredMessage,
} from "./_messages.ts";
import { type Emitter, num, type Path, push, str } from "./_source.ts";
import {
  acceptsAll,
  type KeysRule,
  type ObjectRule,
  type PatternRule,
  type Schema,
} from "./_tree.ts";
import { propertyStep } from "./_values.ts";

/** What a keys rule says about one property name, in the closures' table order. */
interface Entry {
  readonly key: string;
  /** Its `properties` schema, unless that accepts everything. */
  schema: Schema | undefined;
  declared: boolean;
  required: boolean;
}

/** A keys rule prepared for code, or `undefined` when it checks nothing. */
interface Keys {
  readonly keyword: KeysRule["keyword"];
  readonly entries: readonly Entry[];
  readonly requiredCount: number;
  readonly patterns: readonly PatternRule[];
  readonly additional: Schema | undefined;
  readonly names: Schema | undefined;
}

function prepare(rule: KeysRule): Keys | undefined {
  const table = new Map<string, Entry>();
  const entry = (key: string): Entry => {
    let found = table.get(key);
    if (found === undefined) {
      found = { key, schema: undefined, declared: false, required: false };
      table.set(key, found);
    }
    return found;
  };
  for (const [key, schema] of rule.properties) {
    const found = entry(key);
    found.declared = true;
    if (!acceptsAll(schema)) found.schema = schema;
  }
  for (const key of rule.required) entry(key).required = true;
  const entries = [...table.values()];
  const requiredCount = entries.filter((found) => found.required).length;
  const useful = (schema: Schema | undefined) =>
    schema !== undefined && !acceptsAll(schema) ? schema : undefined;
  const keys = {
    keyword: rule.keyword,
    entries,
    requiredCount,
    patterns: rule.patterns,
    additional: useful(rule.additional),
    names: useful(rule.names),
  };
  const checked = entries.some((found) => found.schema !== undefined);
  const idle = !checked && requiredCount === 0 && keys.patterns.length === 0 &&
    keys.additional === undefined && keys.names === undefined;
  return idle ? undefined : keys;
}

/** Whether the `switch` over keys needs a case for this entry. */
function hasCase(keys: Keys, entry: Entry): boolean {
  return entry.required || entry.schema !== undefined ||
    (entry.declared && keys.additional !== undefined);
}

/** The `for...in` yes/no pass, exactly as the closures run it. */
function testEachKey(emit: Emitter, keys: Keys, v: string, fail: string, call: boolean): string {
  const [k, x, seen, matched] = [emit.name("k"), emit.name("x"), emit.name("q"), emit.name("m")];
  const { additional } = keys;
  let cases = "";
  for (const entry of keys.entries) {
    if (!hasCase(keys, entry)) continue;
    cases += `case ${str(entry.key)}: { ${entry.required ? `${seen}++;` : ""}${
      entry.declared && additional !== undefined ? `${matched} = true;` : ""
    }${entry.schema === undefined ? "" : emit.test(entry.schema, x, fail, call)} break; }`;
  }
  let body = `const ${x} = ${v}[${k}]; if (${x} === undefined) continue;`;
  if (keys.names !== undefined) body += emit.test(keys.names, k, fail, call);
  if (additional !== undefined) body += `let ${matched} = false;`;
  if (cases !== "") body += `switch (${k}) { ${cases} }`;
  for (const { regex, schema } of keys.patterns) {
    body += `if (${emit.constant(regex)}.test(${k})) { ${
      additional === undefined ? "" : `${matched} = true;`
    }${emit.test(schema, x, fail, call)} }`;
  }
  if (additional !== undefined) {
    body += `if (!${matched}) { ${emit.test(additional, x, fail, call)} }`;
  }
  const counted = keys.requiredCount > 0;
  return `${counted ? `let ${seen} = 0;` : ""}for (const ${k} in ${v}) { ${body} }${
    counted ? `if (${seen} !== ${keys.requiredCount}) ${fail};` : ""
  }`;
}

/**
 * Whether properties can be read by name: nothing applies to other keys, and
 * no name is one that plain objects inherit.
 */
function readsByName(keys: Keys): boolean {
  return keys.patterns.length === 0 && keys.additional === undefined &&
    keys.names === undefined && keys.entries.every(({ key }) => !(key in Object.prototype));
}

/**
 * Code that runs `direct` for plain objects and `other` for the rest, which
 * may inherit what `for...in` would not list (class instances, null
 * prototypes, a JSON key "constructor").
 */
function plainOr(v: string, direct: string, other: string): string {
  return `if (${v}.constructor === PLAIN) { ${direct} } else { ${other} }`;
}

/** The yes/no pass of a keys rule. */
function testKeys(emit: Emitter, rule: KeysRule, v: string, fail: string): string {
  const keys = prepare(rule);
  if (keys === undefined) return "";
  if (!readsByName(keys)) return testEachKey(emit, keys, v, fail, false);
  let reads = "";
  for (const { key, schema, required } of keys.entries) {
    if (schema === undefined) {
      if (required) reads += `if (${v}[${str(key)}] === undefined) ${fail};`;
      continue;
    }
    const x = emit.name("x");
    const check = emit.test(schema, x, fail);
    reads += required
      ? `const ${x} = ${v}[${str(key)}]; if (${x} === undefined) ${fail}; ${check}`
      : `const ${x} = ${v}[${str(key)}]; if (${x} !== undefined) { ${check} }`;
  }
  // The other objects call the subschemas' functions, so that code does not double per level.
  return plainOr(v, reads, testEachKey(emit, keys, v, fail, true));
}

/** The report pass of a keys rule. */
function reportKeys(emit: Emitter, rule: KeysRule, v: string, path: Path): string {
  const keys = prepare(rule);
  if (keys === undefined) return "";
  const checked = keys.entries.filter(({ schema }) => schema !== undefined);
  // Reads by name report in the schema's order, which is the value's key
  // order when at most one property can report anything.
  if (!readsByName(keys) || checked.length > 1) return reportEachKey(emit, keys, v, path, false);
  let reads = "";
  const values = new Map<string, string>();
  for (const { key, schema } of checked) {
    if (schema === undefined) continue;
    const x = emit.name("x");
    values.set(key, x);
    reads += `const ${x} = ${v}[${str(key)}]; if (${x} !== undefined) { ${
      emit.report(schema, x, path.text(propertyStep(key)))
    } }`;
  }
  for (const { key, required } of keys.entries) {
    if (!required) continue;
    reads += `if (${values.get(key) ?? `${v}[${str(key)}]`} === undefined) ${
      push(path, "required", str(requiredMessage(key)))
    }`;
  }
  return plainOr(v, reads, reportEachKey(emit, keys, v, path, true));
}

/** The report pass over every key, then the missing required names. */
function reportEachKey(emit: Emitter, keys: Keys, v: string, path: Path, call: boolean): string {
  const [k, x, matched, named] = [emit.name("k"), emit.name("x"), emit.name("m"), emit.name("l")];
  const { additional } = keys;
  const flags = new Map<Entry, string>();
  let cases = "";
  for (const entry of keys.entries) {
    if (!hasCase(keys, entry)) continue;
    let code = "";
    if (entry.required) {
      const flag = emit.name("f");
      flags.set(entry, flag);
      code += `${flag} = true;`;
    }
    if (entry.declared && additional !== undefined) code += `${matched} = true;`;
    if (entry.schema !== undefined) {
      code += emit.report(entry.schema, x, path.text(propertyStep(entry.key)), call);
    }
    cases += `case ${str(entry.key)}: { ${code} break; }`;
  }
  const dynamic = path.expression(`st(${k})`);
  let body = `const ${x} = ${v}[${k}]; if (${x} === undefined) continue;`;
  if (keys.names !== undefined) {
    body += `${named}: { ${emit.whenPasses(keys.names, k, `break ${named};`)} ${
      push(path, "propertyNames", `pnm(${k})`)
    } }`;
  }
  if (additional !== undefined) body += `let ${matched} = false;`;
  if (cases !== "") body += `switch (${k}) { ${cases} }`;
  for (const { regex, schema } of keys.patterns) {
    body += `if (${emit.constant(regex)}.test(${k})) { ${
      additional === undefined ? "" : `${matched} = true;`
    }${emit.report(schema, x, dynamic, call)} }`;
  }
  if (additional === false) {
    const message = keys.keyword === "additionalProperties" ? `am(${k})` : `um(${k})`;
    body += `if (!${matched}) ${push(path, keys.keyword, message)}`;
  } else if (additional !== undefined) {
    body += `if (!${matched}) { ${emit.report(additional, x, dynamic, call)} }`;
  }
  let code = [...flags.values()].map((flag) => `let ${flag} = false;`).join("");
  code += `for (const ${k} in ${v}) { ${body} }`;
  for (const [entry, flag] of flags) {
    code += `if (!${flag}) ${push(path, "required", str(requiredMessage(entry.key)))}`;
  }
  return code;
}

/** Counts the properties `for...in` lists with a value that is not `undefined`. */
function countKeys(emit: Emitter, v: string, count: string): string {
  const k = emit.name("k");
  return `let ${count} = 0; for (const ${k} in ${v}) { if (${v}[${k}] !== undefined) ${count}++; }`;
}

/** Statements that run `fail` when the object in variable `v` breaks `rule`. */
export function testObject(emit: Emitter, rule: ObjectRule, v: string, fail: string): string {
  switch (rule.kind) {
    case "keys":
      return testKeys(emit, rule, v, fail);
    case "minProperties":
    case "maxProperties": {
      const count = emit.name("n");
      const broken = rule.kind === "minProperties" ? "<" : ">";
      return `${countKeys(emit, v, count)} if (${count} ${broken} ${num(rule.limit)}) ${fail};`;
    }
    case "dependentRequired":
      return rule.rules.map(([when, needed]) =>
        `if (has(${v}, ${str(when)})) { ${
          needed.map((key) => `if (!has(${v}, ${str(key)})) ${fail};`).join("")
        } }`
      ).join("");
    case "dependentSchemas":
      return rule.rules.map(([when, schema]) =>
        `if (has(${v}, ${str(when)})) { ${emit.test(schema, v, fail)} }`
      ).join("");
  }
}

/** Statements that push the violations of `rule` by the object in variable `v`. */
export function reportObject(emit: Emitter, rule: ObjectRule, v: string, path: Path): string {
  switch (rule.kind) {
    case "keys":
      return reportKeys(emit, rule, v, path);
    case "minProperties":
    case "maxProperties": {
      const count = emit.name("n");
      const [broken, message] = rule.kind === "minProperties"
        ? ["<", fewerMessage(rule.limit, "property", "properties")]
        : [">", moreMessage(rule.limit, "property", "properties")];
      return `${countKeys(emit, v, count)} if (${count} ${broken} ${num(rule.limit)}) ${
        push(path, rule.kind, str(message))
      }`;
    }
    case "dependentRequired":
      return rule.rules.map(([when, needed]) =>
        `if (has(${v}, ${str(when)})) { ${
          needed.map((key) =>
            `if (!has(${v}, ${str(key)})) ${
              push(path, "dependentRequired", str(dependentRequiredMessage(key, when)))
            }`
          ).join("")
        } }`
      ).join("");
    case "dependentSchemas":
      return rule.rules.map(([when, schema]) =>
        `if (has(${v}, ${str(when)})) { ${emit.report(schema, v, path)} }`
      ).join("");
  }
}
