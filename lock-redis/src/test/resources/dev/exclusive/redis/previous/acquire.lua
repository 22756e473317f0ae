-- Acquires a lock if nobody holds it; answers a retry by the holder itself with the hold it already has.
--
-- KEYS[1]  the lock's hash: owner, holder, acquired (ms), fence; expires by PX after the ttl
-- KEYS[2]  the lock's fence counter: the last fence granted; kept ttl + retention after each grant
-- ARGV[1]  owner id of the acquiring handle
-- ARGV[2]  holder description (LockHolder.encode())
-- ARGV[3]  ttl in milliseconds
-- ARGV[4]  fence retention in milliseconds
--
-- Returns {1, fence, acquired-at ms, expires-at ms} when acquired, {0, remaining ms} when another owner holds it
-- (remaining is -1 for a key without expiry). Times come from the Redis clock (TIME).
-- Idempotent for the same owner: when ARGV[1] already holds a live lease (a client resent the script after a read
-- timeout, and the first run had taken the lock), the answer is {1, that hold's fence, its acquired-at ms, now +
-- ttl} and its lease is renewed to the ttl, as extend.lua would; the caller never hears busy about its own hold.
-- A lease is live while its PTTL is at least 1 ms, in every script: in its last millisecond Redis still
-- keeps the key (PTTL 0), but every script treats it as expired.
-- Big numbers are formatted with %d: Lua's default number-to-string conversion would round them.

local ttl = tonumber(ARGV[3])
local remaining = redis.call('PTTL', KEYS[1])
if remaining > 0 or remaining == -1 then
    local held = redis.call('HMGET', KEYS[1], 'owner', 'acquired', 'fence')
    if held[1] ~= ARGV[1] or not (held[2] and held[3]) then
        return {0, remaining}
    end
    local time = redis.call('TIME')
    local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    redis.call('PEXPIRE', KEYS[1], string.format('%d', ttl + 2)) -- the slack explained below
    if redis.call('PTTL', KEYS[2]) < ttl + tonumber(ARGV[4]) then
        redis.call('PEXPIRE', KEYS[2], string.format('%d', ttl + tonumber(ARGV[4])))
    end
    return {1, tonumber(held[3]), tonumber(held[2]), now_ms + ttl}
end
if remaining == 0 then
    redis.call('DEL', KEYS[1])
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])

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
