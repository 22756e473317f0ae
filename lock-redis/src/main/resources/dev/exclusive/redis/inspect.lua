-- Reads a live lock.
--
-- KEYS[1]  the lock's hash
--
-- Returns {owner, holder, acquired-at ms, fence, remaining ms, now ms} for a live lock, nil when it is
-- free or expired (or has under a millisecond left). Remaining leaves out acquire.lua's slack; "now" is the
-- Redis clock (TIME).

local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 then
    return false
end
local fields = redis.call('HMGET', KEYS[1], 'owner', 'holder', 'acquired', 'fence')
if not (fields[1] and fields[2] and fields[3] and fields[4]) then
    return false -- not a hash this store wrote
end
local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- the lease shown leaves out the 2 ms of slack that acquire.lua adds, so it never exceeds the ttl asked for
return {fields[1], fields[2], tonumber(fields[3]), tonumber(fields[4]), math.max(1, remaining - 2), now_ms}
