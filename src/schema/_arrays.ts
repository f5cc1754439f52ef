/**
 * Checks for the array keywords. `items` and `prefixItems` descend into the
 * value, so their reports extend the JSON path with `[i]`.
 *
 * @module
 */

import { acceptsAll, type Check, FALSE_NODE, leaf, type Node } from "./_checks.ts";
import {
  containsMessage,
  duplicateMessage,
  fewerMessage,
  maxContainsMessage,
  moreMessage,
} from "./_messages.ts";
import { findDuplicate } from "./_values.ts";

/** `prefixItems` and `items` together: `rest` applies after the prefix; `false` forbids it. */
export function itemsCheck(
  prefix: readonly Node[],
  rest: Node | undefined,
  keyword: "items" | "unevaluatedItems" = "items",
): Check<readonly unknown[]> {
  const restFrom = prefix.length;
  // `items: false` gets its own message: "must NOT have more than 2 items".
  const forbidsRest = rest === FALSE_NODE;
  const checksRest = rest !== undefined && !forbidsRest && !acceptsAll(rest);
  return {
    test: (items) => {
      if (forbidsRest && items.length > restFrom) return false;
      const prefixEnd = Math.min(restFrom, items.length);
      for (let i = 0; i < prefixEnd; i++) {
        if (!prefix[i]!.test(items[i])) return false;
      }
      if (checksRest) {
        for (let i = restFrom; i < items.length; i++) {
          if (!rest.test(items[i])) return false;
        }
      }
      return true;
    },
    report: (items, path, out) => {
      items.forEach((item, i) => {
        const node = i < restFrom ? prefix[i] : checksRest ? rest : undefined;
        if (node !== undefined && !node.test(item)) node.report(item, `${path}[${i}]`, out);
      });
      if (forbidsRest && items.length > restFrom) {
        out.push({ path, keyword, message: moreMessage(restFrom, "item") });
      }
    },
  };
}

/** `contains` with `minContains` and `maxContains`. */
export function containsCheck(node: Node, min: number, max: number): Check<readonly unknown[]> {
  const count = (items: readonly unknown[]): number => {
    let matches = 0;
    for (let i = 0; i < items.length; i++) {
      if (node.test(items[i])) matches++;
    }
    return matches;
  };
  return {
    test: (items) => {
      let matches = 0;
      for (let i = 0; i < items.length; i++) {
        if (node.test(items[i]) && ++matches >= min && max === Infinity) return true;
      }
      return matches >= min && matches <= max;
    },
    report: (items, path, out) => {
      const matches = count(items);
      if (matches < min) {
        out.push({ path, keyword: "contains", message: containsMessage(min) });
      }
      if (matches > max) {
        out.push({ path, keyword: "maxContains", message: maxContainsMessage(max) });
      }
    },
  };
}

/** `minItems`. */
export function minItemsCheck(limit: number): Check<readonly unknown[]> {
  return leaf("minItems", fewerMessage(limit, "item"), (items) => items.length >= limit);
}

/** `maxItems`. */
export function maxItemsCheck(limit: number): Check<readonly unknown[]> {
  return leaf("maxItems", moreMessage(limit, "item"), (items) => items.length <= limit);
}

/** `uniqueItems: true`. */
export function uniqueItemsCheck(): Check<readonly unknown[]> {
  return leaf("uniqueItems", (items) => {
    const [i, j] = findDuplicate(items) ?? [0, 0];
    return duplicateMessage(i, j);
  }, (items) => findDuplicate(items) === undefined);
}
