/**
 * The one shutdown-on-signal mechanism every `serve*` function shares: on
 * SIGINT or SIGTERM run the caller's graceful shutdown, then exit with 130 or
 * 143 (128 plus the signal's number, as shells report it); a second signal
 * exits at once. Deno's signal API on Deno, `process` events on Node and Bun.
 *
 * @module
 */

import { exitProcess, runtime } from "./host.ts";

/** The signals that end a server, and the exit status each one leads to. */
export const SHUTDOWN_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;

/** A signal that ends a server. */
export type ShutdownSignal = keyof typeof SHUTDOWN_SIGNALS;

/** Options of {@linkcode onShutdownSignal}. */
export interface ShutdownSignalOptions {
  /**
   * Whether the process exits (130 on SIGINT, 143 on SIGTERM) once `shutdown`
   * has settled.
   * @default {true}
   */
  exit?: boolean;
  /**
   * Where the signal and a failing `shutdown` are reported.
   * @default {console.error}
   */
  log?: (message: string) => void;
}

type Listen = (signal: ShutdownSignal, listener: () => void) => () => void;

async function listenerFor(): Promise<Listen> {
  if (runtime === "deno") {
    return (signal, listener) => {
      Deno.addSignalListener(signal, listener);
      return () => Deno.removeSignalListener(signal, listener);
    };
  }
  const process = (await import("node:process")).default;
  return (signal, listener) => {
    process.on(signal, listener);
    return () => void process.off(signal, listener);
  };
}

/**
 * Runs `shutdown` on the first SIGINT or SIGTERM (noting it with one line
 * through `log`), then exits with the signal's status; a second signal while
 * `shutdown` runs exits at once.
 * Signals the platform lacks (SIGTERM on Windows) are skipped.
 *
 * @param shutdown The graceful shutdown: stop accepting, finish, flush.
 * @param options Whether to exit afterwards, and where failures go.
 * @returns A function that removes the listeners again.
 *
 * @example
 * ```ts
 * import { onShutdownSignal } from "./signals.ts";
 * const remove = await onShutdownSignal(async () => {});
 * remove();
 * ```
 */
export async function onShutdownSignal(
  shutdown: (signal: ShutdownSignal) => Promise<void>,
  options: ShutdownSignalOptions = {},
): Promise<() => void> {
  const listen = await listenerFor();
  const log = options.log ?? ((message: string) => console.error(message));
  const exit = options.exit ?? true;
  let received: ShutdownSignal | undefined;
  const removers: (() => void)[] = [];
  const remove = (): void => {
    for (const removeOne of removers.splice(0)) removeOne();
  };
  const onSignal = (signal: ShutdownSignal): void => {
    if (received !== undefined) {
      // The operator insists: leave now, whatever is still running.
      if (exit) void exitProcess(SHUTDOWN_SIGNALS[signal]);
      return;
    }
    received = signal;
    log(`warden: ${signal} received, shutting down`);
    shutdown(signal)
      .catch((error: unknown) => log(`warden: the shutdown after ${signal} failed: ${error}`))
      .finally(() => {
        remove();
        if (exit) void exitProcess(SHUTDOWN_SIGNALS[signal]);
      });
  };
  for (const signal of Object.keys(SHUTDOWN_SIGNALS).filter(isShutdownSignal)) {
    try {
      removers.push(listen(signal, () => onSignal(signal)));
    } catch {
      // A platform without this signal simply doesn't get the hook.
    }
  }
  return remove;
}

function isShutdownSignal(name: string): name is ShutdownSignal {
  return name in SHUTDOWN_SIGNALS;
}
