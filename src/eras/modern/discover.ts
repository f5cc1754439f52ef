/**
 * `server/discover`: the server's revisions, capabilities and instructions,
 * answered in both eras.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import type { RequestCore } from "../../core/request_core.ts";

/** What a discover result is made of. */
export interface DiscoverSource {
  /** The request core (for the capabilities). */
  readonly core: RequestCore;
  /** Every revision the server speaks. */
  readonly supportedVersions: readonly string[];
  /** Natural-language guidance for the model. */
  readonly instructions: string | undefined;
  /** Extensions to advertise, by identifier. */
  readonly extensions?: Readonly<Record<string, Record<string, unknown>>>;
}

/** The body of a discover result (without the era's envelope). */
export function discoverResult(source: DiscoverSource): Record<string, unknown> {
  const capabilities = source.core.capabilities();
  if (source.extensions !== undefined && Object.keys(source.extensions).length > 0) {
    // The extensions in use (skills, apps) join those of this front door (tasks).
    const inUse = isRecord(capabilities.extensions) ? capabilities.extensions : {};
    capabilities.extensions = { ...source.extensions, ...inUse };
  }
  const result: Record<string, unknown> = {
    supportedVersions: [...source.supportedVersions],
    capabilities,
  };
  if (source.instructions !== undefined) result.instructions = source.instructions;
  return result;
}
