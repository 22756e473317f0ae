-- Acquires a lock if nobody holds it.
--
-- KEYS[1]  the lock's hash: owner, holder, acquired (ms), fence; expires by PX after the ttl
-- KEYS[2]  the lock's fence counter: the last fence granted; kept ttl + retention after each grant
-- ARGV[1]  owner id of the acquiring handle
-- ARGV[2]  holder description (LockHolder.encode())
-- ARGV[3]  ttl in milliseconds
-- ARGV[4]  fence retention in milliseconds
--
-- Returns {1, fence, acquired-at ms, expires-at ms} when acquired, {0, remaining ms} when held
-- (remaining is -1 for a key without expiry). Times come from the Redis clock (TIME).
-- A lease is live while its PTTL is at least 1 ms, in every script: in its last millisecond Redis still
-- keeps the key (PTTL 0), but every script treats it as expired.
-- Big numbers are formatted with %d: Lua's default number-to-string conversion would round them.

local remaining = redis.call('PTTL', KEYS[1])
if remaining > 0 or remaining == -1 then
    return {0, remaining}
end
if remaining == 0 then
    redis.call('DEL', KEYS[1])
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
local ttl = tonumber(ARGV[3])

-- Strictly above the last fence while the counter is retained; above the clock in microseconds otherwise,
-- so fences keep increasing after the counter expired or was lost, as long as the Redis clock moves forward.
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local fence = math.max(last + 1, now_us)
local fence_text = string.format('%d', fence)

redis.call('SET', KEYS[2], fence_text, 'PX', string.format('%d', ttl + tonumber(ARGV[4])))
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[2], 'acquired', string.format('%d', now_ms), 'fence', fence_text)
-- 2 ms of slack: Redis counts whole milliseconds from a truncated clock, and a lease in its last millisecond counts
-- as expired, so without it the key could end up to 2 ms before the holder's own estimate (start of its call + ttl).
redis.call('PEXPIRE', KEYS[1], string.format('%d', ttl + 2))
return {1, fence, now_ms, now_ms + ttl}
