/**
 * Cursor pagination for the list methods. Cursors are opaque to clients;
 * inside they carry the list they belong to and an offset, so a cursor from
 * one list is refused by another.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../jsonrpc/errors.ts";

function encode(list: string, offset: number): string {
  return btoa(JSON.stringify([list, offset])).replaceAll("=", "");
}

function decode(list: string, cursor: unknown): number {
  const refuse = () => new RpcError(ErrorCode.InvalidParams, "Invalid params: invalid cursor");
  if (typeof cursor !== "string" || cursor.length > 200) throw refuse();
  let value: unknown;
  try {
    value = JSON.parse(atob(cursor));
  } catch {
    throw refuse();
  }
  if (
    !Array.isArray(value) || value.length !== 2 || value[0] !== list ||
    !Number.isSafeInteger(value[1]) || value[1] < 0
  ) {
    throw refuse();
  }
  return value[1];
}

/**
 * One page of `items`: all of them when `pageSize` is undefined, else
 * `pageSize` items from the cursor's offset, with `nextCursor` when more
 * remain. A cursor that was not issued for `list` is -32602.
 */
export function paginate<T>(
  list: string,
  items: readonly T[],
  cursor: unknown,
  pageSize: number | undefined,
): { page: readonly T[]; nextCursor?: string } {
  if (pageSize === undefined) {
    // Without paging a cursor can only be stale or forged: still refuse it.
    if (cursor !== undefined) decode(list, cursor);
    return { page: items };
  }
  const start = cursor === undefined ? 0 : decode(list, cursor);
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: encode(list, end) } : { page };
}
