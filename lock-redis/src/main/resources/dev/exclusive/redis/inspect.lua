-- Reads a live lock.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
--
-- Returns {lease, remaining ms, Redis seconds, Redis microseconds} for a live lease (parsed by the store), or
-- {owner, holder, acquired ms, fence, remaining ms, Redis seconds, Redis microseconds} for a lease of the
-- previous layout (a hash); nil when it is free or expired (or has under a millisecond left). The clock is
-- Redis's (TIME).

local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 then
    return false
end
local lease = redis.pcall('GET', KEYS[1])
local time = redis.call('TIME')
if type(lease) == 'string' then
    return {lease, remaining, time[1], time[2]}
end
local fields = redis.call('HMGET', KEYS[1], 'owner', 'holder', 'acquired', 'fence')
if not (fields[1] and fields[2] and fields[3] and fields[4]) then
    return false -- not a hash this store wrote
end
return {fields[1], fields[2], fields[3], fields[4], remaining, time[1], time[2]}
