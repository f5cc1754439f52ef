/**
 * The file appender writes each batch joined and encoded at once, a
 * bufferful at a time: these tests hold the file to the lines appended, in
 * order and whole, whatever their sizes and characters.
 */

import assert from "node:assert/strict";
import { FileAppender } from "../../../src/guardrails/audit/file_appender.ts";

Deno.test("FileAppender: a batch of short, long and non-ASCII lines lands whole and in order", async () => {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const appender = new FileAppender(path, false, (error) => {
      throw error;
    });
    // Past a third of the largest buffer (1 MiB) a line goes alone; past it in bytes, too.
    const lines = [
      "a",
      "x".repeat(400_000),
      "é—😀\ud800 \u2028 end",
      "é".repeat(200_000),
      ...Array.from({ length: 300 }, (_, i) => `{"seq":${i},"text":"${"y".repeat(i * 7)}"}`),
      "b".repeat(349_000),
      "",
      "last",
    ];
    for (const line of lines.slice(0, 4)) appender.append(line);
    await appender.flush();
    for (const line of lines.slice(4)) appender.append(line);
    await appender.close();
    const expected = new TextEncoder().encode(`${lines.join("\n")}\n`);
    assert.deepEqual(await Deno.readFile(path), expected);
  } finally {
    await Deno.remove(path);
  }
});
