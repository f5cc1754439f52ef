/**
 * Multi round-trip requests (revision 2026-07-28): reading a retry's
 * `inputResponses` and sealed `requestState`, and ending a run that asked
 * the client for something with an `InputRequiredResult`.
 *
 * @module
 */

import { ErrorCode, invalidParamsError, RpcError } from "../../jsonrpc/errors.ts";
import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallKind } from "../../call/context.ts";
import {
  type CallNext,
  type CallOutcome,
  isPending,
  type MaybeOutcome,
} from "../../call/outcome.ts";
import { ModernErrorCode } from "../../jsonrpc/modern_errors.ts";
import { quotaOutcome } from "../../core/quotas.ts";
import type { InputLedger } from "./context.ts";
import { digestArguments, type StateBinding, type StateSealer } from "./request_state.ts";

/** What a request brings from earlier rounds. */
export interface RoundTrip {
  /** Answers by input key: the sealed state's, and the retry's own. */
  readonly answers: ReadonlyMap<string, unknown>;
  /** Rounds already asked (0 on a first request). */
  readonly round: number;
  /** Whether a sealed state verified and is used for the first time: the same call continuing. */
  readonly continuation: boolean;
  /** Whether the request carries input responses or a state (its result is not cacheable). */
  readonly retried: boolean;
  /** Why the retry is refused (-32602), if it is. */
  readonly problem: RpcError | undefined;
  /** The refusal of a state whose principal has its quota of remembered states, if it has. */
  readonly overQuota: CallOutcome | undefined;
  /** What a state for this request must be bound to. */
  binding(): Promise<StateBinding>;
}

/** The answers of a first request: none (shared, never written). */
const NO_ANSWERS: ReadonlyMap<string, unknown> = new Map();

/**
 * Reads a request's `inputResponses` and opens its `requestState`, if any:
 * at once when there is no state to open (the first round of every call),
 * else a promise, since opening a sealed state awaits its digest and key.
 */
export function openState(
  sealer: StateSealer,
  kind: CallKind,
  method: string,
  params: JsonRpcParams,
  principal: string | undefined,
  now: number,
): RoundTrip | Promise<RoundTrip> {
  let bound: Promise<StateBinding> | undefined;
  const binding = (): Promise<StateBinding> => {
    // Digesting the arguments costs a hash: only for rounds that seal or open a state.
    bound ??= (async () => {
      const name = params[kind === "resource" ? "uri" : "name"];
      const args = kind === "resource" ? {} : params.arguments;
      return {
        principal: principal ?? null,
        method,
        name: typeof name === "string" ? name : "",
        arguments: await digestArguments(isRecord(args) ? args : {}),
      };
    })();
    return bound;
  };
  const responses = params.inputResponses;
  const token = params.requestState;
  const retried = responses !== undefined || token !== undefined;
  let answers: ReadonlyMap<string, unknown> = NO_ANSWERS;
  let problem: RpcError | undefined;
  if (responses !== undefined && !isRecord(responses)) {
    problem = invalidParamsError("inputResponses must be an object of answers by input key");
  } else if (responses !== undefined) {
    answers = new Map(Object.entries(responses));
  }
  const first: RoundTrip = {
    answers,
    round: 0,
    continuation: false,
    retried,
    problem,
    overQuota: undefined,
    binding,
  };
  if (token === undefined || problem !== undefined) return first;
  return openSealed(sealer, token, now, first);
}

/** The round trip `first` continued from the sealed state `token`, or refused for it. */
async function openSealed(
  sealer: StateSealer,
  token: unknown,
  now: number,
  first: RoundTrip,
): Promise<RoundTrip> {
  try {
    const state = await sealer.open(token, await first.binding(), now);
    const overQuota = state.overQuota
      ? quotaOutcome("requestStates", sealer.perPrincipal)
      : undefined;
    // The state's answers go over the retry's own under the same key, as they always have.
    const answers = new Map(first.answers);
    for (const [key, value] of Object.entries(state.answers)) answers.set(key, value);
    // A replayed state is served, but pays like a new call.
    return { ...first, answers, round: state.round, continuation: state.firstUse, overQuota };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return { ...first, problem: error };
  }
}

/** How input rounds are bounded and sealed. */
export interface RoundOptions {
  /** Seals the state of the next round. */
  readonly sealer: StateSealer;
  /** The most rounds of input a call may ask for. */
  readonly maxRounds: number;
  /** How long a sealed state stays valid, in ms. */
  readonly ttlMs: number;
  /** The clock, in ms. */
  readonly now: () => number;
}

/** `["sampling", "elicitation.url"]` as `{ sampling: {}, elicitation: { url: {} } }`. */
function capabilitiesFor(capabilities: Iterable<string>): Record<string, unknown> {
  const required: Record<string, Record<string, unknown>> = {};
  for (const capability of capabilities) {
    const [top = capability, sub] = capability.split(".");
    const entry = required[top] ??= {};
    if (sub !== undefined) entry[sub] = {};
  }
  return required;
}

/**
 * Wraps a call's last step: when the handler asked for input it has not
 * been given, the outcome is an `InputRequiredResult` with every
 * outstanding ask and a sealed state carrying the answers used so far.
 * A step that answered synchronously without asking stays synchronous.
 */
export function inputRequiredStep(
  step: CallNext,
  ledger: InputLedger,
  trip: RoundTrip,
  options: RoundOptions,
): CallNext {
  return (call): MaybeOutcome => {
    const outcome = step(call);
    if (isPending(outcome)) {
      return outcome.then((settled) => endRound(settled, ledger, trip, options));
    }
    return endRound(outcome, ledger, trip, options);
  };
}

/** What a run that ended with `outcome` answers, given what it asked for. */
function endRound(
  outcome: CallOutcome,
  ledger: InputLedger,
  trip: RoundTrip,
  options: RoundOptions,
): MaybeOutcome {
  if (outcome.status === "cancelled") return outcome;
  if (ledger.missing.size > 0 && outcome.status !== "ok") {
    return {
      status: "invalid",
      error: new RpcError(
        ModernErrorCode.MissingRequiredClientCapability,
        `Missing required client capability: ${[...ledger.missing].join(", ")}`,
        { requiredCapabilities: capabilitiesFor(ledger.missing) },
      ),
    };
  }
  if (ledger.malformed !== undefined) {
    const { key, reason } = ledger.malformed;
    return {
      status: "invalid",
      error: invalidParamsError(`inputResponses[${JSON.stringify(key.slice(0, 80))}]: ${reason}`),
    };
  }
  if (ledger.pending.size === 0) {
    if (outcome.status !== "input_required") return outcome;
    // Only an ask can end a run with input required; anything else is a bug.
    return {
      status: "internal_error",
      error: new RpcError(ErrorCode.InternalError, "Internal error"),
    };
  }
  const round = trip.round + 1;
  if (round > options.maxRounds) {
    return {
      status: "invalid",
      error: invalidParamsError(
        `the request asked for input more than ${options.maxRounds} times`,
      ),
    };
  }
  return askForInput(ledger, trip, options, round);
}

/** The `InputRequiredResult` of a round that asked: the asks and the sealed state. */
async function askForInput(
  ledger: InputLedger,
  trip: RoundTrip,
  options: RoundOptions,
  round: number,
): Promise<CallOutcome> {
  let requestState: string;
  try {
    requestState = await options.sealer.seal({
      binding: await trip.binding(),
      expires: options.now() + options.ttlMs,
      round,
      answers: Object.fromEntries(ledger.used),
    });
  } catch (error) {
    // Too many or too large answers: the client's doing, refused like any bad params.
    if (error instanceof RpcError) return { status: "invalid", error };
    throw error;
  }
  return {
    status: "input_required",
    result: {
      resultType: "input_required",
      inputRequests: Object.fromEntries(ledger.pending),
      requestState,
    },
  };
}
