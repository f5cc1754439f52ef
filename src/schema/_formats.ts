/**
 * The formats `compileSchema` can assert, when asked to (`formats:
 * "assert"`, or a dialect requiring the format-assertion vocabulary). By
 * default `format` is an annotation and none of this runs. Each check is a
 * linear scan or a regular expression without nested quantifiers, so no
 * string makes one slow. Formats not listed here (`idn-hostname`, `iri`, …)
 * are never asserted; nor is `hostname`, whose internationalised labels
 * need IDNA tables Warden does not carry.
 *
 * @module
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return month >= 1 && month <= 12 && day >= 1 && day <= days[month - 1]!;
}

function isTime(text: string): boolean {
  const match = TIME.exec(text);
  if (match === null) return false;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const sign = match[4] === "-" ? -1 : 1;
  const [offsetHour, offsetMinute] = [Number(match[5] ?? 0), Number(match[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) {
    return false;
  }
  if (second < 60) return true;
  // A leap second is 23:59:60 in UTC only.
  const utc = (((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1440) + 1440) %
    1440;
  return utc === 23 * 60 + 59;
}

function isDateTime(text: string): boolean {
  const at = text.search(/[Tt]/);
  return at === 10 && isDate(text.slice(0, at)) && isTime(text.slice(at + 1));
}

/** RFC 3339's duration: each part may follow only the one just larger. */
const DURATION = new RegExp(
  "^P(?:(?:\\d+D|\\d+M(?:\\d+D)?|\\d+Y(?:\\d+M(?:\\d+D)?)?)(?:TIME)?|TIME|\\d+W)$".replaceAll(
    "TIME",
    "T(?:\\d+H(?:\\d+M(?:\\d+S)?)?|\\d+M(?:\\d+S)?|\\d+S)",
  ),
);

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function isIpv6(text: string): boolean {
  let rest = text;
  let groups = 8;
  const lastColon = rest.lastIndexOf(":");
  if (lastColon >= 0 && rest.slice(lastColon + 1).includes(".")) {
    if (!IPV4.test(rest.slice(lastColon + 1))) return false;
    rest = rest.slice(0, lastColon + 1) + "0";
    groups = 7;
  }
  const halves = rest.split("::");
  if (halves.length > 2) return false;
  const parts = halves.map((half) => half === "" ? [] : half.split(":"));
  const count = parts.reduce((sum, list) => sum + list.length, 0);
  const hex = /^[0-9A-Fa-f]{1,4}$/;
  if (!parts.every((list) => list.every((part) => hex.test(part)))) return false;
  return halves.length === 2 ? count < groups : count === groups;
}

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

function isHostname(text: string): boolean {
  if (text.length === 0 || text.length > 253) return false;
  const labels = text.split(".");
  // Punycode labels must be valid A-labels: "xn--" then something; "--" in 3rd/4th place is reserved.
  return labels.every((label) =>
    LABEL.test(label) && !(label.slice(2, 4) === "--" && !/^xn--/i.test(label))
  );
}

const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;

function isEmail(text: string): boolean {
  const at = text.lastIndexOf("@");
  if (at <= 0) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  const localOk = /^"(?:[^"\\]|\\.)*"$/.test(local) ||
    local.split(".").every((atom) => LOCAL_ATOM.test(atom));
  if (!localOk) return false;
  const literal = /^\[(.*)\]$/.exec(domain);
  if (literal !== null) {
    const address = literal[1]!;
    return address.startsWith("IPv6:") ? isIpv6(address.slice(5)) : IPV4.test(address);
  }
  return isHostname(domain);
}

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;
const RELATIVE_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~[01])*)*)$/;

function isRegex(text: string): boolean {
  try {
    new RegExp(text, "u");
    return true;
  } catch {
    return false;
  }
}

/** RFC 3986 characters, percent-encodings checked apart. */
const URI_CHARS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function isUriReference(text: string): boolean {
  if (!URI_CHARS.test(text)) return false;
  const hash = text.indexOf("#");
  // "#" may appear once; "[" and "]" only around an IP literal host.
  if (hash >= 0 && text.indexOf("#", hash + 1) >= 0) return false;
  const authority = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/([^/?#]*)/.exec(text);
  const host = authority?.[1]?.replace(/^[^@]*@/, "").replace(/:\d*$/, "") ?? "";
  if ((authority?.[1]?.match(/@/g) ?? []).length > 1) return false;
  const brackets = (text.match(/[[\]]/g) ?? []).length;
  if (brackets > 0) {
    const literal = /^\[([0-9A-Fa-f:.]+)\]$/.exec(host);
    if (literal === null || brackets !== 2 || !isIpv6(literal[1]!)) return false;
  }
  if (authority !== undefined && authority !== null) {
    const port = /:([^:\]]*)$/.exec(authority[1]!.replace(/^[^@]*@/, ""));
    if (port !== null && !/^\d*$/.test(port[1]!) && !host.startsWith("[")) return false;
  }
  // A first path segment with ":" and no scheme before it would read as a scheme.
  if (!SCHEME.test(text) && /^[^/?#]*:/.test(text)) return false;
  return true;
}

function isUri(text: string): boolean {
  return SCHEME.test(text) && isUriReference(text);
}

/** RFC 6570: a literal outside expressions, and one expression. */
// Control characters are excluded on purpose: RFC 6570 forbids them in literals.
// deno-lint-ignore no-control-regex
const TEMPLATE_LITERAL = /^(?:[^\x00-\x20"%<>\\^`{|}\x7f]|%[0-9A-Fa-f]{2})$/;
const VARCHAR = "(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})";
const VARSPEC = `${VARCHAR}(?:\\.?${VARCHAR})*(?::[1-9]\\d{0,3}|\\*)?`;
const EXPRESSION = new RegExp(`^\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\}$`);

function isUriTemplate(text: string): boolean {
  for (let i = 0; i < text.length;) {
    if (text[i] === "{") {
      const end = text.indexOf("}", i);
      if (end < 0 || !EXPRESSION.test(text.slice(i, end + 1))) return false;
      i = end + 1;
    } else {
      const step = text[i] === "%" ? 3 : 1;
      if (!TEMPLATE_LITERAL.test(text.slice(i, i + step))) return false;
      i += step;
    }
  }
  return true;
}

/** The formats that can be asserted, by name. */
export const FORMATS: ReadonlyMap<string, (text: string) => boolean> = new Map([
  ["date", isDate],
  ["time", isTime],
  ["date-time", isDateTime],
  ["duration", (text: string) => DURATION.test(text)],
  ["email", isEmail],
  ["ipv4", (text: string) => IPV4.test(text)],
  ["ipv6", isIpv6],
  ["uuid", (text: string) => UUID.test(text)],
  ["json-pointer", (text: string) => JSON_POINTER.test(text)],
  ["relative-json-pointer", (text: string) => RELATIVE_POINTER.test(text)],
  ["regex", isRegex],
  ["uri", isUri],
  ["uri-reference", isUriReference],
  ["uri-template", isUriTemplate],
]);
