/**
 * Sealing a multi round-trip `requestState`: the state travels through the
 * client, so it is encrypted and authenticated (AES-256-GCM, Web Crypto),
 * bound to the principal, the method, the item and its arguments, and
 * valid for a limited time. Keys rotate: the first seals, all of them open.
 * A state opened a second time (a replay) is still served, but is flagged
 * so that it is not taken for the same call continuing. Telling replays
 * apart means remembering opened states until they expire: each principal
 * may have a bounded number remembered, so one caller cannot crowd out the
 * others' memory.
 *
 * @module
 */

import { invalidParamsError, type RpcError } from "../../jsonrpc/errors.ts";
import type { SecretSource, StateSecret } from "../../store/sealing_keys.ts";

export { checkSecret, MIN_SECRET_BYTES } from "./state_secret.ts";

/** What a state is bound to: a retry must match every field. */
export interface StateBinding {
  /** The principal the state was minted for; null when anonymous. */
  readonly principal: string | null;
  /** The JSON-RPC method. */
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly name: string;
  /** SHA-256 of the call's arguments in canonical form. */
  readonly arguments: string;
}

/** What a sealed state carries between rounds. */
export interface StatePayload {
  /** The request it belongs to. */
  readonly binding: StateBinding;
  /** When it stops being accepted, in ms since the epoch. */
  readonly expires: number;
  /** How many rounds have asked the client so far. */
  readonly round: number;
  /** The answers collected in earlier rounds, by input key. */
  readonly answers: Readonly<Record<string, unknown>>;
}

/** An opened state, and whether this process has seen it opened before. */
export interface OpenedState extends StatePayload {
  /**
   * True the first time this process opens the state: a replay of the same
   * state is still served, but is not the same call continuing.
   */
  readonly firstUse: boolean;
  /**
   * True when the state's principal has its quota of remembered states
   * already: the state is neither remembered nor to be served.
   */
  readonly overQuota: boolean;
}

/** How many opened states are remembered (until they expire) to tell replays. */
const MAX_REMEMBERED = 100_000;

const VERSION = "w1";

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** JSON with object keys sorted, so equal arguments digest equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${
      keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** SHA-256 of `args` in canonical JSON, base64url. */
export async function digestArguments(args: Readonly<Record<string, unknown>>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical(args)));
  return base64url(new Uint8Array(digest));
}

function refuse(reason: string): RpcError {
  return invalidParamsError(`requestState ${reason}`);
}

interface Key {
  readonly id: number;
  readonly key: CryptoKey;
}

function importKeys(secrets: readonly StateSecret[]): Promise<readonly Key[]> {
  return Promise.all(secrets.map(async (secret) => {
    const material = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
    // Hashing spreads any secret over the 256-bit key; the first byte names the key.
    const raw = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(material)));
    const id = new Uint8Array(await crypto.subtle.digest("SHA-256", raw))[0] ?? 0;
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, [
      "encrypt",
      "decrypt",
    ]);
    return { id, key };
  }));
}

/** Seals and opens request states with a set of keys; the first seals. */
export class StateSealer {
  readonly #secrets: readonly StateSecret[];
  readonly #maxBytes: number;
  readonly #source: SecretSource | undefined;
  #keys: Promise<readonly Key[]> | undefined;
  /** Nonces of the states opened so far, with their expiry, by principal. */
  readonly #opened = new Map<string | null, Map<string, number>>();
  /** How many nonces `#opened` holds in all. */
  #remembered = 0;
  /** The most states remembered per principal. */
  readonly #perPrincipal: number;
  #loadedAt = 0;

  /**
   * @param secrets The keys, current first; none (and no source) means one random key for this process.
   * @param maxBytes The largest sealed state accepted or produced.
   * @param source Keys shared through a store; used when `secrets` is empty (a configured secret wins).
   * @param perPrincipal The most opened states remembered per principal (the quota).
   */
  constructor(
    secrets: readonly StateSecret[],
    maxBytes: number,
    source?: SecretSource,
    perPrincipal = 1000,
  ) {
    this.#perPrincipal = perPrincipal;
    this.#source = secrets.length > 0 ? undefined : source;
    this.#secrets = secrets.length > 0 || source !== undefined
      ? secrets
      : [crypto.getRandomValues(new Uint8Array(32))];
    this.#maxBytes = maxBytes;
  }

  #load(force = false): Promise<readonly Key[]> {
    const source = this.#source;
    if (source === undefined) {
      this.#keys ??= importKeys(this.#secrets);
      return this.#keys;
    }
    const age = Date.now() - this.#loadedAt;
    // A forced reload (an unknown key id) at most once a second: forged states cannot hammer the store.
    if (this.#keys === undefined || age >= source.refreshMs || (force && age >= 1000)) {
      const previous = this.#keys;
      this.#loadedAt = Date.now();
      // A failed reload keeps the keys in hand; with none yet, the call fails and the next retries.
      this.#keys = source.load().then(importKeys).catch((error: unknown) => {
        if (previous === undefined) {
          this.#keys = undefined;
          throw error;
        }
        return previous;
      });
    }
    return this.#keys;
  }

  /**
   * Seals `payload`.
   *
   * @throws {RpcError} -32602 when the sealed state would be larger than allowed
   */
  async seal(payload: StatePayload): Promise<string> {
    const [current] = await this.#load();
    if (current === undefined) throw new Error("No key to seal the request state with");
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plain = new TextEncoder().encode(JSON.stringify(payload));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv }, current.key, plain),
    );
    const bytes = new Uint8Array(1 + iv.length + sealed.length);
    bytes[0] = current.id;
    bytes.set(iv, 1);
    bytes.set(sealed, 1 + iv.length);
    const token = `${VERSION}.${base64url(bytes)}`;
    if (token.length > this.#maxBytes) {
      // Only the client's answers grow a state: it has to start again with shorter ones.
      throw invalidParamsError(
        `the answers collected for this request exceed ${this.#maxBytes} bytes`,
      );
    }
    return token;
  }

  /**
   * Opens a state and checks it against the request it came back with.
   *
   * @throws {RpcError} -32602 when it is malformed, forged, expired or for another request
   */
  async open(token: unknown, binding: StateBinding, now: number): Promise<OpenedState> {
    if (typeof token !== "string" || token.length > this.#maxBytes) {
      throw refuse("is not a state this server issued");
    }
    const [version, body] = token.split(".", 2);
    const bytes = version === VERSION && body !== undefined ? fromBase64url(body) : undefined;
    if (bytes === undefined || bytes.length < 1 + 12 + 16) {
      throw refuse("is not a state this server issued");
    }
    let plain: Uint8Array | undefined;
    let keys = await this.#load();
    if (this.#source !== undefined && !keys.some(({ id }) => id === bytes[0])) {
      keys = await this.#load(true);
    }
    for (const { id, key } of keys) {
      if (id !== bytes[0]) continue;
      try {
        plain = new Uint8Array(
          await crypto.subtle.decrypt(
            { name: "AES-GCM", iv: bytes.slice(1, 13) },
            key,
            bytes.slice(13),
          ),
        );
        break;
      } catch {
        // Another key with the same first byte may still open it.
      }
    }
    if (plain === undefined) throw refuse("failed its integrity check");
    const payload = JSON.parse(new TextDecoder().decode(plain)) as StatePayload;
    if (payload.expires <= now) throw refuse("has expired: start the request again");
    const bound = payload.binding;
    if (
      bound.principal !== binding.principal || bound.method !== binding.method ||
      bound.name !== binding.name || bound.arguments !== binding.arguments
    ) {
      throw refuse("belongs to another request");
    }
    const use = this.#remember(base64url(bytes.subarray(1, 13)), payload, now);
    return { ...payload, firstUse: use === "first", overQuota: use === "over_quota" };
  }

  /** The most opened states remembered per principal (the quota). */
  get perPrincipal(): number {
    return this.#perPrincipal;
  }

  /**
   * Records a state's nonce under its principal: "first" when it is new,
   * "again" when it was opened before (or no more can be told apart), and
   * "over_quota" when its principal has its quota of live states remembered.
   */
  #remember(nonce: string, payload: StatePayload, now: number): "first" | "again" | "over_quota" {
    const principal = payload.binding.principal;
    let opened = this.#opened.get(principal);
    if (opened?.has(nonce) === true) return "again";
    if (opened !== undefined && opened.size >= this.#perPrincipal) {
      this.#forget(principal, opened, now);
      if (opened.size >= this.#perPrincipal) return "over_quota";
    }
    if (this.#remembered >= MAX_REMEMBERED) {
      for (const [who, states] of [...this.#opened]) this.#forget(who, states, now);
      // Full of live states: treat it as a replay (the rate limiter charges it) rather than forget.
      if (this.#remembered >= MAX_REMEMBERED) return "again";
    }
    if (opened === undefined || opened.size === 0) this.#opened.set(principal, opened = new Map());
    opened.set(nonce, payload.expires);
    this.#remembered++;
    return "first";
  }

  /** Drops the expired states of one principal (and the principal once it has none). */
  #forget(principal: string | null, opened: Map<string, number>, now: number): void {
    for (const [key, expires] of opened) {
      if (expires > now) continue;
      opened.delete(key);
      this.#remembered--;
    }
    if (opened.size === 0) this.#opened.delete(principal);
  }
}
