/**
 * The legacy era's requests to the client (sampling, elicitation, roots),
 * loaded on a handler's first ask: with the asks and the elicitation forms
 * they check, about 28 KiB of source that no server runs before its first
 * reply. The specifier is literal, so `deno compile` and `deno publish` still
 * include the module.
 *
 * @module
 */

type ClientRequests = typeof import("./client_requests.ts");

let loading: Promise<ClientRequests> | undefined;
let loaded: ClientRequests | undefined;

/**
 * Runs `use` with the client requests module: at once when it is loaded, as
 * an ask always was, else once it is (an ask aborted meanwhile is then never
 * sent). A failed load rejects with a clear error and the next ask tries again.
 *
 * @param use What to send, given the module's `sample`, `elicit`, `elicitUrl`
 * and `listRoots`.
 * @returns What `use` returns.
 *
 * @example
 * ```ts ignore
 * import { withClientRequests } from "./ask_client.ts";
 * const roots = await withClientRequests((asks) => asks.listRoots(session, {}));
 * ```
 */
export function withClientRequests<T>(use: (asks: ClientRequests) => Promise<T>): Promise<T> {
  if (loaded !== undefined) return use(loaded);
  loading ??= import("./client_requests.ts").then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      throw new Error(`Cannot load the client requests (sampling, elicitation, roots): ${error}`);
    },
  );
  return loading.then(use);
}
