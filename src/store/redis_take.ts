/**
 * The rate-limit take as Redis runs it: the Lua script that takes from every
 * bucket or none on the Redis server, and the reading of its reply.
 *
 * @module
 */

import type { BucketTakeResult } from "./shared_store.ts";

/**
 * The token bucket of token_bucket.ts, all or nothing over KEYS, on the
 * server's clock so that instances with skewed clocks still agree. ARGV holds
 * a (capacity, refillPerSecond, cost, ttlMs) quadruple per key. Replies
 * {1} when allowed, else {0, retryAfterSeconds, refused index...} (1-based).
 */
export const TAKE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local tokens, stamps, refused = {}, {}, {}
local retry = 0
for i = 1, #KEYS do
  local capacity = tonumber(ARGV[4 * i - 3])
  local rate = tonumber(ARGV[4 * i - 2])
  local cost = tonumber(ARGV[4 * i - 1])
  local have, at = capacity, now
  local stored = redis.call('HMGET', KEYS[i], 't', 'u')
  if stored[1] and stored[2] then
    local t, u = tonumber(stored[1]), tonumber(stored[2])
    have = math.min(capacity, math.max(0, t) + math.max(0, now - u) / 1000 * rate)
    at = math.max(u, now)
  end
  if have + 1e-9 * math.max(1, capacity) >= cost then
    tokens[i], stamps[i] = math.max(0, have - cost), at
  else
    refused[#refused + 1] = i
    retry = math.max(retry, math.max(1, math.ceil((cost - have) / rate - 1e-9)))
  end
end
if #refused > 0 then
  local reply = {0, retry}
  for _, i in ipairs(refused) do reply[#reply + 1] = i end
  return reply
end
for i = 1, #KEYS do
  redis.call('HSET', KEYS[i], 't', string.format('%.17g', tokens[i]), 'u', stamps[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[4 * i])
end
return {1}
`;

/** An error Redis replied with (the server is up), as opposed to a connection failure. */
export function isReplyError(error: unknown): boolean {
  return error instanceof Error &&
    (/^(ErrorReply|SimpleError|BlobError)$/.test(error.name) ||
      error.message.startsWith("NOSCRIPT"));
}

/** The outcome a reply of {@linkcode TAKE_SCRIPT} stands for. */
export function takeReply(reply: unknown): BucketTakeResult {
  if (!Array.isArray(reply) || typeof reply[0] !== "number") {
    throw new TypeError("Unexpected reply from the rate-limit script");
  }
  if (reply[0] === 1) return { allowed: true };
  const retryAfterSeconds = Number(reply[1]);
  const refused = reply.slice(2).map((index) => Number(index) - 1);
  return { allowed: false, retryAfterSeconds, refused };
}
