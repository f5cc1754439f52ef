/**
 * Real-format secret samples and look-alikes for the redaction tests,
 * generated from the token formats with a seeded PRNG, so every run sees
 * the same data and no sample is copied from anywhere.
 *
 * @module
 */

import { type ParsedFormat, parseFormat } from "../../src/guardrails/redact/formats.ts";
import { seededRandom } from "./seeded_random.ts";

/** A seeded PRNG (mulberry32): floats in [0, 1). */
export const prng: (seed: number) => () => number = seededRandom;

/** `length` characters drawn from `alphabet`. */
export function randomChars(random: () => number, alphabet: string, length: number): string {
  let out = "";
  for (let index = 0; index < length; index++) {
    out += alphabet[Math.floor(random() * alphabet.length)];
  }
  return out;
}

/** A sample in the format: its text, and where the masked part starts. */
export interface Sample {
  /** The whole token (with any kept host and path). */
  readonly text: string;
  /** The part the redactor must mask. */
  readonly secret: string;
}

/** A real-format sample of a format: random characters of each part's class and a length in its range. */
export function sampleOf(format: string | ParsedFormat, random: () => number): Sample {
  const parsed = typeof format === "string" ? parseFormat(format) : format;
  let secret = "";
  for (const part of parsed.parts) {
    if ("literal" in part) {
      secret += part.literal;
      continue;
    }
    // Mostly lengths near the published minimum, sometimes anywhere in the range.
    const span = part.max - part.min;
    const length = part.min + Math.floor((random() < 0.7 ? Math.min(span, 8) : span) * random());
    secret += randomChars(random, part.alphabet, length);
  }
  return { text: parsed.kept + secret, secret };
}

/** The contexts every sample is tried in. */
export const CONTEXTS: Readonly<Record<string, (value: string) => string>> = {
  prose: (v) => `Here is what the build printed: ${v} and then it stopped.`,
  sentence: (v) => `Use ${v}. It expires tomorrow`,
  log: (v) => `2026-12-03T07:30:00.123Z INFO worker[42] upload started with ${v} (attempt 2)`,
  json: (v) => JSON.stringify({ id: 42, note: v, ok: true }),
  jsonNested: (v) => JSON.stringify({ event: "deploy", data: { items: [v] } }),
  env: (v) => `UPSTREAM_VALUE=${v}`,
  envSecret: (v) => `export SERVICE_API_TOKEN="${v}"`,
  yaml: (v) => `deploy:\n  value: ${v}\n  region: eu-west-1`,
  header: (v) => `X-Request-Tag: ${v}\r\nAccept: */*`,
  cli: (v) => `$ tool push --value ${v} --verbose`,
};
