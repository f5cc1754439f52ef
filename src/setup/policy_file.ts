/**
 * The JSONC policy file: parsing with positions in every syntax error, and
 * checking its shape with the path of every unknown key or wrong type. A bad
 * file refuses to start the server; it never runs unguarded.
 *
 * @module
 */

// Types only: the parser itself is imported when a policy is read, so that
// servers without a policy never load it (cold start).
import {
  type JsoncNode as Node,
  type JsoncParseError as ParseError,
  loadJsoncParser,
} from "../runtime/npm/jsonc.ts";
import type { GuardrailsConfig } from "../guardrails/policy/create_guardrails.ts";
import { checkGuardrailsConfig } from "../guardrails/policy/create_guardrails.ts";
import { loadGitleaksRules } from "../guardrails/redact/gitleaks.ts";
import { dirname, resolve } from "node:path";
import { readTextFile } from "../runtime/host.ts";
import { type AuthPolicy, checkAuthPolicy } from "./auth_policy.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function position(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${line}:${offset - lineStart + 1}`;
}

const DESCRIBE: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected symbol",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character",
};

/**
 * Builds the value of a parse tree. Keys are defined, not assigned, so a key
 * named `__proto__` stays an ordinary key and cannot swap an object's
 * prototype (and with it hide rules from the checks); duplicate keys are
 * refused rather than letting the last one silently win.
 */
function valueOf(node: Node, text: string, source: string): unknown {
  switch (node.type) {
    case "object": {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (keyNode === undefined || valueNode === undefined) continue;
        const key = String(keyNode.value);
        if (Object.hasOwn(object, key)) {
          throw new SyntaxError(
            `Cannot parse policy ${source}: duplicate key ${JSON.stringify(key)} at ${
              position(text, keyNode.offset)
            }`,
          );
        }
        Object.defineProperty(object, key, {
          value: valueOf(valueNode, text, source),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    case "array":
      return (node.children ?? []).map((child) => valueOf(child, text, source));
    default:
      return node.value;
  }
}

/**
 * Parses and checks a policy file's text. `source` names the file in
 * messages; a relative `redact.gitleaksRules` path is read from `baseDir`
 * (default: the current directory), and its rules become `redact.rules`.
 * Throws `SyntaxError` ("Cannot parse policy FILE: expected ',' at 3:7") or
 * `TypeError`/`RangeError` ("Cannot load policy FILE: unknown key "acess" at
 * the top level, expected one of principal, quotas, …", "Cannot load policy
 * FILE: audit.file must NOT have fewer than 1 character") for a bad file.
 *
 * @example
 * ```ts
 * import { parsePolicy } from "@warden/mcp/setup";
 * const config = await parsePolicy('{ "access": { "tools": { "deny": ["rm_*"] } } }', "inline");
 * ```
 */
export async function parsePolicy(
  text: string,
  source: string,
  baseDir = ".",
): Promise<GuardrailsConfig> {
  const { config, auth } = await readPolicy(text, source, baseDir);
  if (auth !== undefined) {
    // Dropping it would leave a server its author believes protected open; say where it goes.
    throw new TypeError(
      `Cannot load policy ${source}: auth is read by serverSetup(); in code, pass http.auth: oauthResourceServer(...)`,
    );
  }
  return config;
}

/**
 * A policy's guardrails and its `auth` section (the HTTP endpoint's OAuth
 * options, which `serverSetup()` reads), checked as {@linkcode parsePolicy}
 * checks them.
 */
export async function readPolicy(
  text: string,
  source: string,
  baseDir = ".",
): Promise<{ config: GuardrailsConfig; auth: AuthPolicy | undefined }> {
  const { parseTree, printParseErrorCode } = await loadJsoncParser();
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const code = printParseErrorCode(first.error);
    throw new SyntaxError(
      `Cannot parse policy ${source}: ${DESCRIBE[code] ?? code} at ${position(text, first.offset)}`,
    );
  }
  if (tree === undefined) throw new SyntaxError(`Cannot parse policy ${source}: the file is empty`);
  const value = valueOf(tree, text, source);
  try {
    // The `auth` section configures the HTTP endpoint, not a guardrail: checked on its own.
    if (isRecord(value) && Object.hasOwn(value, "auth")) {
      const { auth, ...rest } = value;
      const config = await withGitleaksRules(checkGuardrailsConfig(rest), baseDir);
      return { config, auth: checkAuthPolicy(auth) };
    }
    return {
      config: await withGitleaksRules(checkGuardrailsConfig(value), baseDir),
      auth: undefined,
    };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const message = `Cannot load policy ${source}: ${error.message}`;
    if (error instanceof RangeError) throw new RangeError(message);
    if (error instanceof SyntaxError) throw new SyntaxError(message);
    throw new TypeError(message);
  }
}

/**
 * Reads and checks a policy file. Needs only `--allow-read=FILE` on Deno.
 *
 * @example
 * ```ts ignore
 * import { loadPolicyFile } from "@warden/mcp/setup";
 * const config = await loadPolicyFile("policy.jsonc");
 * ```
 */
export async function loadPolicyFile(path: string): Promise<GuardrailsConfig> {
  const text = await readTextFile(path, "policy");
  return await parsePolicy(text, path, dirname(path));
}

/** A policy file's guardrails and `auth` section ({@linkcode readPolicy} on a file). */
export async function readPolicyFile(
  path: string,
): Promise<{ config: GuardrailsConfig; auth: AuthPolicy | undefined }> {
  const text = await readTextFile(path, "policy");
  return await readPolicy(text, path, dirname(path));
}

/** The config with a `redact.gitleaksRules` file read into `redact.rules`. */
async function withGitleaksRules(
  config: GuardrailsConfig,
  baseDir: string,
): Promise<GuardrailsConfig> {
  const redact = config.redact;
  if (typeof redact !== "object" || redact.gitleaksRules === undefined) return config;
  const { gitleaksRules, ...options } = redact;
  let rules;
  try {
    rules = await loadGitleaksRules(resolve(baseDir, gitleaksRules));
  } catch (error) {
    const message = `redact.gitleaksRules: ${error instanceof Error ? error.message : error}`;
    throw error instanceof SyntaxError ? new SyntaxError(message) : new TypeError(message);
  }
  return { ...config, redact: { ...options, rules: [...(options.rules ?? []), ...rules] } };
}
