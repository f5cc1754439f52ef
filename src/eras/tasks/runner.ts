/**
 * The task runner (revision 2026-07-28, tasks extension): runs a tool's
 * ordinary `(args, ctx)` handler detached from the `tools/call` that
 * started it, and keeps its task's state in the store.
 *
 * A task keeps its handler suspended while it waits for input: an ask the
 * handler awaits becomes one of the task's `inputRequests`, and the
 * `tasks/update` that answers it resolves that very promise. The handler
 * is never run twice, so its side effects happen once; the price is that a
 * task's handler lives in this process. On a shared store another instance
 * reads the task from the store and sends its cancel and its answers here
 * as messages (`TaskStore.send`/`listen`); answers sent that way are
 * checked here, so a malformed one is logged, not refused with -32602.
 *
 * @module
 */

import { ErrorCode, invalidParamsError, RpcError } from "../../jsonrpc/errors.ts";
import type { CallOutcome } from "../../call/outcome.ts";
import type { ContextServices } from "../../core/context_base.ts";
import { inputRequiredOutcome } from "../../core/outcome.ts";
import { quotaOutcome } from "../../core/quotas.ts";
import { type RegisteredTool, runTool } from "../../core/tools.ts";
import { type InputRequest, ModernContext } from "../modern/context.ts";
import {
  askedBeforeTask,
  holdWrites,
  inputState,
  newRun,
  newTaskRecord,
  progressMessage,
  type Run,
  taskMeta,
  type Waiting,
} from "./run.ts";
import { endOf, failure, taskFields, wireTask } from "./wire.ts";
import {
  isTerminal,
  type TaskMessage,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
  TaskStoreFullError,
} from "./store.ts";

/** How the runner is set up. */
export interface TaskRunnerOptions {
  /** Where tasks are kept. */
  readonly store: TaskStore;
  /** The redactor, for everything a task shows. */
  readonly services: ContextServices;
  /** How long a task is kept after creation, in ms; null for unlimited. */
  readonly ttlMs: number | null;
  /** The polling interval suggested to clients, in ms. */
  readonly pollIntervalMs: number;
  /** The clock, in ms since the epoch. */
  readonly now: () => number;
  /** Diagnostics. */
  readonly log: (message: string) => void;
  /** Told every new state of a task (status notifications). */
  readonly changed: (task: TaskRecord) => void;
}

/** An error outcome of a start that makes no task. */
function internalError(message: string): CallOutcome {
  return { status: "internal_error", error: new RpcError(ErrorCode.InternalError, message) };
}

/** Runs tasks and answers for their state. */
export class TaskRunner {
  readonly #options: TaskRunnerOptions;
  readonly #running = new Map<string, Run>();
  /** The end of listening to the store's messages (a shared store only). */
  readonly #unlisten: Promise<(() => void) | undefined>;
  #closed = false;

  constructor(options: TaskRunnerOptions) {
    this.#options = options;
    const { store, log } = options;
    this.#unlisten = store.listen === undefined
      ? Promise.resolve(undefined)
      : store.listen((message) => this.#hear(message)).catch((error: unknown) => {
        log(`warden: cannot hear task messages from the shared store: ${String(error)}`);
        return undefined;
      });
  }

  /** A message from another instance about a task that may run here. */
  #hear(message: TaskMessage): void {
    const run = this.#running.get(message.taskId);
    if (run === undefined || run.settled) return;
    if (message.kind === "cancel") {
      this.#settle(run, { status: "cancelled", statusMessage: message.reason });
      return;
    }
    try {
      this.#answer(run, message.responses);
    } catch (error) {
      // Nobody waits for this answer here: the instance that took it has replied already.
      this.#options.log(`warden: task ${run.taskId}: answers refused: ${String(error)}`);
    }
  }

  /** How many tasks run in this process. */
  get running(): number {
    return this.#running.size;
  }

  /**
   * Starts `tool` as a task for the request `parent` serves. Resolves to
   * the `CreateTaskResult` once the store holds the task; to the
   * placeholder "input_required" outcome when the handler asked, before the
   * task, for input marked `beforeTask` (no task is kept then; the front
   * door answers with an `InputRequiredResult`).
   */
  async start(
    parent: ModernContext,
    tool: RegisteredTool,
    args: Readonly<Record<string, unknown>>,
  ): Promise<CallOutcome> {
    const options = this.#options;
    if (this.#closed) return internalError("The server is shutting down");
    const task = newTaskRecord(parent.principal, tool.definition.name, options.now(), options);
    this.#reap();
    // A principal at its task quota is refused before the handler runs, where the store can tell.
    const room = options.store.room?.(task.principal);
    if (room !== undefined && room.left === 0) return quotaOutcome("tasks", room.limit);
    const run = newRun(task);
    const context = this.#taskContext(parent, run);
    // The gate opens once the task is kept, or is not to be.
    const open = holdWrites(run);
    // The handler starts now: its asks before its first await decide whether a task is made.
    const outcome = runTool(tool, args, context, options.log);
    const refused = await this.#keep(task, run, open);
    if (refused !== undefined) return refused;
    // Input asked before the task: the call answers with an InputRequiredResult instead.
    if (askedBeforeTask(parent.ledger)) return await this.#withdraw(task, run, open);
    parent.ledger.detached = true;
    open();
    this.#launch(task, run, Promise.resolve(outcome));
    return {
      status: "ok",
      // The handle is flat: the task's fields and nothing of its outcome.
      result: { resultType: "task", ...taskFields(task) },
    };
  }

  /** The context the task's handler runs with: its asks wait on the run, its progress is the task's. */
  #taskContext(parent: ModernContext, run: Run): ModernContext {
    const ledger = parent.ledger;
    ledger.suspend = (key, request, parse) => this.#wait(run, key, request, parse);
    return new ModernContext(
      parent.requestId,
      parent.principal,
      taskMeta(parent, run.taskId),
      run.inflight,
      this.#options.services,
      (method, params) => {
        if (method === "notifications/progress") this.#progress(run, params);
      },
      ledger,
      parent.auth,
    );
  }

  /** Puts the task in the store; on failure ends the run and says why, or rethrows. */
  async #keep(task: TaskRecord, run: Run, open: () => void): Promise<CallOutcome | undefined> {
    try {
      await this.#options.store.create(task);
      return undefined;
    } catch (error) {
      run.settled = true;
      run.inflight.abort(error);
      open();
      if (!(error instanceof TaskStoreFullError)) throw error;
      // The principal's own bound: its refusal says so (and is audited as a quota).
      if (error.perPrincipal !== undefined) return quotaOutcome("tasks", error.perPrincipal);
      this.#options.log(`warden: ${error.message}`);
      return internalError("Cannot create task: the server is busy");
    }
  }

  /** Takes back a task made for a call that needs input first: no task is kept. */
  async #withdraw(task: TaskRecord, run: Run, open: () => void): Promise<CallOutcome> {
    run.settled = true;
    run.inflight.abort(new Error("The call needs input before its task"));
    await this.#options.store.delete(task.taskId);
    open();
    return inputRequiredOutcome();
  }

  /** Counts the task as running here and records its end when the handler settles. */
  #launch(task: TaskRecord, run: Run, outcome: Promise<CallOutcome>): void {
    const { log, changed } = this.#options;
    this.#running.set(task.taskId, run);
    changed(task);
    outcome.then(
      (end) => this.#settle(run, endOf(end)),
      (error) => {
        log(`warden: task ${task.taskId} failed: ${String(error)}`);
        this.#settle(run, failure(ErrorCode.InternalError, "Internal error"));
      },
    );
  }

  /** The task `taskId` if `principal` created it; undefined otherwise, as if unknown. */
  async find(taskId: string, principal: string | undefined): Promise<TaskRecord | undefined> {
    this.#reap();
    const task = await this.#options.store.get(taskId);
    return task !== undefined && task.principal === (principal ?? null) ? task : undefined;
  }

  /** A task as tasks/get shows it: the wire shape, through the redactor. */
  show(task: TaskRecord): Record<string, unknown> {
    return this.#options.services.mask(wireTask(task));
  }

  /** A task as `notifications/tasks` carries it: what tasks/get would show. */
  notice(task: TaskRecord): Record<string, unknown> {
    return this.show(task);
  }

  /**
   * Gives a task's waiting asks their answers. Answers to keys that are not
   * outstanding are ignored; a malformed answer refuses the whole update
   * (-32602) and leaves every ask waiting.
   */
  async update(task: TaskRecord, responses: Readonly<Record<string, unknown>>): Promise<void> {
    const run = this.#running.get(task.taskId);
    if (run === undefined) {
      // Run by another instance on the shared store: the answers travel to it and are checked there.
      if (!isTerminal(task.status)) {
        await this.#options.store.send?.({ taskId: task.taskId, kind: "input", responses });
      }
      return;
    }
    this.#answer(run, responses);
  }

  #answer(run: Run, responses: Readonly<Record<string, unknown>>): void {
    if (run.settled) return;
    const given: [Waiting, unknown][] = [];
    for (const [key, answer] of Object.entries(responses)) {
      const waiting = run.waiting.get(key);
      if (waiting === undefined) continue;
      try {
        given.push([waiting, waiting.parse(answer)]);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw invalidParamsError(`inputResponses[${JSON.stringify(key.slice(0, 80))}]: ${reason}`);
      }
    }
    if (given.length === 0) return;
    for (const key of Object.keys(responses)) run.waiting.delete(key);
    this.#write(run, inputState(run));
    for (const [waiting, value] of given) waiting.resolve(value);
  }

  /** Cancels a task: it is "cancelled" at once and its handler's signal aborts. */
  async cancel(task: TaskRecord, reason = "Cancelled by the client"): Promise<void> {
    const run = this.#running.get(task.taskId);
    if (run !== undefined) {
      this.#settle(run, { status: "cancelled", statusMessage: reason });
      await run.chain;
      return;
    }
    // Not running here (finished, or run elsewhere): the stored state is all there is.
    if (!isTerminal(task.status)) {
      const next = await this.#options.store.update(task.taskId, {
        status: "cancelled",
        statusMessage: reason,
        lastUpdatedAt: this.#options.now(),
      });
      if (next !== undefined) this.#options.changed(next);
      // Its handler may run on another instance on the shared store: that one aborts it.
      await this.#options.store.send?.({ taskId: task.taskId, kind: "cancel", reason });
    }
  }

  /**
   * Stops taking tasks and cancels every running one: each becomes
   * "cancelled" with the statusMessage "The server shut down" and its
   * handler's signal aborts. Resolves once their states are written; the
   * store is closed after.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const runs = [...this.#running.values()];
    for (const run of runs) {
      this.#settle(run, { status: "cancelled", statusMessage: "The server shut down" });
    }
    await Promise.allSettled(runs.map((run) => run.chain));
    // Not awaited: a subscription still connecting to a dead store ends when the store closes,
    // which the server does after this.
    void this.#unlisten.then((unlisten) => unlisten?.());
    this.#options.store.close();
  }

  /**
   * Stops the runs whose TTL has passed: their tasks are gone from the
   * store, so nobody can answer or read them. Done lazily (on the next
   * start or lookup) so that the runner holds no timer.
   */
  #reap(): void {
    const now = this.#options.now();
    for (const run of this.#running.values()) {
      if (run.deadline !== null && now >= run.deadline) this.#stop(run, "The task expired");
    }
  }

  #wait(
    run: Run,
    key: string,
    request: InputRequest,
    parse: (answer: unknown) => unknown,
  ): Promise<unknown> {
    if (run.settled || run.inflight.aborted) {
      return Promise.reject(new Error("The task has ended"));
    }
    if (run.waiting.has(key)) {
      return Promise.reject(new TypeError(`Invalid input key: "${key}" is waiting already`));
    }
    const answered = new Promise((resolve, reject) => {
      run.waiting.set(key, { request, parse, resolve, reject });
      this.#write(run, inputState(run));
    });
    // Marked handled: a handler that never awaits the ask must not crash the process.
    answered.catch(() => {});
    return answered;
  }

  #progress(run: Run, params: Record<string, unknown>): void {
    if (run.settled) return;
    this.#write(run, { statusMessage: progressMessage(params) });
  }

  /** Records the end of a run once; aborts its handler and whatever it waits for. */
  #settle(run: Run, end: TaskPatch): void {
    if (run.settled) return;
    this.#stop(run, end.statusMessage ?? `The task is ${end.status ?? "over"}`);
    this.#write(run, end);
  }

  #stop(run: Run, why: string): void {
    run.settled = true;
    this.#running.delete(run.taskId);
    const reason = new Error(why);
    run.inflight.abort(reason);
    for (const waiting of run.waiting.values()) waiting.reject(reason);
    run.waiting.clear();
  }

  /** Writes a change after the earlier ones; a task that is gone (expired) stops its run. */
  #write(run: Run, patch: TaskPatch): void {
    const { store, now, log, changed } = this.#options;
    run.chain = run.chain.then(async () => {
      let next: TaskRecord | undefined;
      try {
        next = await store.update(run.taskId, { ...patch, lastUpdatedAt: now() });
      } catch (error) {
        if (!(error instanceof TaskStoreFullError)) throw error;
        log(`warden: task ${run.taskId}: ${error.message}`);
        const message = "The task's state is too large to keep";
        if (!run.settled) this.#stop(run, message);
        next = await store.update(run.taskId, {
          ...failure(ErrorCode.InternalError, message),
          lastUpdatedAt: now(),
        });
      }
      if (next === undefined) {
        // Expired while running: nobody can read its end, so stop the work.
        if (!run.settled) this.#stop(run, "The task expired");
        return;
      }
      changed(next);
    }).catch((error) => {
      log(`warden: task ${run.taskId}: cannot write its state: ${String(error)}`);
    });
  }
}
