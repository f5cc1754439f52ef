/**
 * Moving stray console output from stdout to stderr while a stdio transport
 * owns stdout, so a `console.log` cannot corrupt the protocol stream.
 *
 * @module
 */

/** How many live transports want the console redirected, and how to undo it. */
let redirects = 0;
let restoreConsole: (() => void) | undefined;

/**
 * Redirects the console methods that print to stdout to stderr, until the
 * returned function is called (any number of times). Nested calls share one
 * redirect, undone when the last is released.
 */
export function redirectConsole(): () => void {
  if (redirects++ === 0) restoreConsole = installRedirect();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--redirects === 0) {
      restoreConsole?.();
      restoreConsole = undefined;
    }
  };
}

/**
 * Replaces the console methods that print to stdout with stand-ins printing to
 * stderr, and returns how to put the originals back.
 */
function installRedirect(): () => void {
  // Captured now, so a logger that later routes console.error to console.log cannot loop.
  const toStderr = console.error;
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const elapsed = (label: string): string =>
    `${label}: ${(performance.now() - (timers.get(label) ?? performance.now())).toFixed(3)}ms`;
  const print = (...data: unknown[]): void => toStderr(...data);
  const standIns = {
    log: print,
    info: print,
    debug: print,
    dirxml: print,
    // Formatting options and tables are lost on stderr; the protocol stream matters more.
    dir: (item?: unknown): void => toStderr(item),
    table: (data?: unknown): void => toStderr(data),
    count: (label = "default"): void => {
      const count = (counts.get(label) ?? 0) + 1;
      counts.set(label, count);
      toStderr(`${label}: ${count}`);
    },
    countReset: (label = "default"): void => void counts.delete(label),
    time: (label = "default"): void => void timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]): void => toStderr(elapsed(label), ...data),
    timeEnd: (label = "default"): void => {
      toStderr(elapsed(label));
      timers.delete(label);
    },
  } satisfies Partial<Console>;
  const originals = new Map<string, unknown>();
  for (const [name, standIn] of Object.entries(standIns)) {
    originals.set(name, Reflect.get(console, name));
    Reflect.set(console, name, standIn);
  }
  return () => {
    for (const [name, standIn] of Object.entries(standIns)) {
      // A method replaced after ours (a logger, a test spy) is its owner's to restore.
      if (Reflect.get(console, name) === standIn) Reflect.set(console, name, originals.get(name));
    }
  };
}
