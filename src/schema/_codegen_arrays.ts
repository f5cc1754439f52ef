/**
 * Generated code for the array keywords, mirroring `_arrays.ts`: the same
 * verdicts, and the same violations in the same order.
 *
 * @module
 */

import { containsMessage, fewerMessage, maxContainsMessage, moreMessage } from "./_messages.ts";
import { type Emitter, num, type Path, push, str } from "./_source.ts";
import { acceptsAll, type ArrayRule } from "./_tree.ts";

/** Statements that run `fail` when the array in variable `v` breaks `rule`. */
export function testArray(emit: Emitter, rule: ArrayRule, v: string, fail: string): string {
  switch (rule.kind) {
    case "items": {
      const { prefix, rest } = rule;
      let code = rest === false ? `if (${v}.length > ${prefix.length}) ${fail};` : "";
      prefix.forEach((schema, i) => {
        if (acceptsAll(schema)) return;
        const x = emit.name("x");
        code += `if (${v}.length > ${i}) { const ${x} = ${v}[${i}]; ${
          emit.test(schema, x, fail)
        } }`;
      });
      if (rest !== undefined && rest !== false && !acceptsAll(rest)) {
        const [i, x] = [emit.name("i"), emit.name("x")];
        code +=
          `for (let ${i} = ${prefix.length}; ${i} < ${v}.length; ${i}++) { const ${x} = ${v}[${i}]; ${
            emit.test(rest, x, fail)
          } }`;
      }
      return code;
    }
    case "contains": {
      // `minContains: 0` without `maxContains` only annotates.
      if (rule.min === 0 && rule.max === Infinity) return "";
      const [m, i, x, loop] = [emit.name("m"), emit.name("i"), emit.name("x"), emit.name("l")];
      // Without maxContains the loop stops at the minimum; with it, at the first match too many.
      const counted = rule.max === Infinity
        ? `if (++${m} >= ${num(rule.min)}) break ${loop};`
        : `if (++${m} > ${num(rule.max)}) ${fail};`;
      return `let ${m} = 0; ${loop}: for (let ${i} = 0; ${i} < ${v}.length; ${i}++) { const ${x} = ${v}[${i}]; ${
        emit.whenPasses(rule.schema, x, counted)
      } } if (${m} < ${num(rule.min)}) ${fail};`;
    }
    case "minItems":
      return `if (${v}.length < ${num(rule.limit)}) ${fail};`;
    case "maxItems":
      return `if (${v}.length > ${num(rule.limit)}) ${fail};`;
    case "uniqueItems":
      return `if (dup(${v}) !== undefined) ${fail};`;
  }
}

/** Statements that push the violations of `rule` by the array in variable `v`. */
export function reportArray(emit: Emitter, rule: ArrayRule, v: string, path: Path): string {
  switch (rule.kind) {
    case "items": {
      const { prefix, rest } = rule;
      let code = "";
      // `i in v` skips holes, as `forEach` does in the closures.
      prefix.forEach((schema, i) => {
        if (acceptsAll(schema)) return;
        const x = emit.name("x");
        code += `if (${i} in ${v}) { const ${x} = ${v}[${i}]; ${
          emit.report(schema, x, path.text(`[${i}]`))
        } }`;
      });
      if (rest !== undefined && rest !== false && !acceptsAll(rest)) {
        const [i, x] = [emit.name("i"), emit.name("x")];
        const at = path.text("[").expression(i).text("]");
        code +=
          `for (let ${i} = ${prefix.length}; ${i} < ${v}.length; ${i}++) { if (!(${i} in ${v})) continue; const ${x} = ${v}[${i}]; ${
            emit.report(rest, x, at)
          } }`;
      }
      if (rest === false) {
        const message = str(moreMessage(prefix.length, "item"));
        code += `if (${v}.length > ${prefix.length}) ${push(path, rule.keyword, message)}`;
      }
      return code;
    }
    case "contains": {
      if (rule.min === 0 && rule.max === Infinity) return "";
      const [m, i, x] = [emit.name("m"), emit.name("i"), emit.name("x")];
      let code =
        `let ${m} = 0; for (let ${i} = 0; ${i} < ${v}.length; ${i}++) { const ${x} = ${v}[${i}]; ${
          emit.whenPasses(rule.schema, x, `${m}++;`)
        } } if (${m} < ${num(rule.min)}) ${push(path, "contains", str(containsMessage(rule.min)))}`;
      if (rule.max !== Infinity) {
        const message = str(maxContainsMessage(rule.max));
        code += `if (${m} > ${num(rule.max)}) ${push(path, "maxContains", message)}`;
      }
      return code;
    }
    case "minItems": {
      const message = str(fewerMessage(rule.limit, "item"));
      return `if (${v}.length < ${num(rule.limit)}) ${push(path, "minItems", message)}`;
    }
    case "maxItems": {
      const message = str(moreMessage(rule.limit, "item"));
      return `if (${v}.length > ${num(rule.limit)}) ${push(path, "maxItems", message)}`;
    }
    case "uniqueItems": {
      const pair = emit.name("d");
      return `const ${pair} = dup(${v}); if (${pair} !== undefined) ${
        push(path, "uniqueItems", `dm(${pair}[0], ${pair}[1])`)
      }`;
    }
  }
}
