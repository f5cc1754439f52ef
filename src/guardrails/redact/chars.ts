/**
 * Character classes for the scanner: one table lookup says whether a UTF-16
 * code unit belongs to a token run, starts a word, separates words inside a
 * run, can be part of a key name, ends an unquoted value, and which kind of
 * character it is.
 *
 * @module
 */

export const RUN = 1;
export const ALNUM = 2;
export const SEP = 4;
export const ASSIGN = 8;
export const KEY = 16;
export const STOP = 32;
export const DIGIT = 64;
export const UPPER = 128;
export const LOWER = 256;
export const TILDE = 512;
export const DASH = 1024;
export const DOT = 2048;
export const UNDERSCORE = 4096;
// One entry per UTF-16 code unit, so the hot loop needs no range check.
export const CLASS = new Uint16Array(65536);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  let kind = 0;
  if (/[A-Za-z0-9]/u.test(char)) kind = RUN | ALNUM | KEY;
  if (/[0-9]/u.test(char)) kind |= DIGIT;
  if (/[A-Z]/u.test(char)) kind |= UPPER;
  if (/[a-z]/u.test(char)) kind |= LOWER;
  if (/[+\/.~-]/u.test(char)) kind = RUN | SEP;
  if (char === "_") kind = RUN;
  if (char === "_" || char === "." || char === "-") kind |= KEY;
  if (char === "~") kind |= TILDE;
  if (char === "-") kind |= DASH;
  if (char === ".") kind |= DOT;
  if (char === "_") kind |= UNDERSCORE;
  if (char === ":" || char === "=") kind = ASSIGN;
  if (/[\s,;&"'`<>()[\]{}\\]/u.test(char) || code < 32) kind |= STOP;
  CLASS[code] = kind;
}

/** The class bits of a code unit. */
export function classOf(code: number): number {
  return CLASS[code] ?? 0;
}

/** Whether a code unit is an ASCII letter or digit. */
export function isAlnum(code: number): boolean {
  return (classOf(code) & ALNUM) !== 0;
}

/** Whether a code unit separates words inside a run (`-+/.~`). */
export function sep(code: number): boolean {
  return (classOf(code) & SEP) !== 0;
}

/** Whether a code unit is a space or a tab. */
export function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}
