-- Releases a lock held by the given owner, then tells waiters; with a minimum hold, not before it has passed.
--
-- KEYS[1]  the lock's hash
-- ARGV[1]  owner id of the releasing handle
-- ARGV[2]  the channel that waiters listen on
-- ARGV[3]  the full lock name (the message)
-- ARGV[4]  minimum hold in milliseconds, counted from the hold's acquired-at (Redis clock); 0 for none
--
-- Returns 1 if released, or kept until the floor (acquired-at + minimum hold) when that is still ahead by the
-- Redis clock (TIME): the lease then ends at the floor, or earlier if it already did, with owner and fence
-- kept and nothing published; waiters see it expire. Returns 0 if the lock is free, expired, or held by another
-- owner (then it is left as it is). An expired hash reads as absent (or has PTTL 0 in its last millisecond), so
-- a late release never frees the next holder.

local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
    return 0
end
local min_hold = tonumber(ARGV[4])
if min_hold > 0 then
    local time = redis.call('TIME')
    local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    local until_floor = tonumber(redis.call('HGET', KEYS[1], 'acquired') or '0') + min_hold - now_ms
    if until_floor > 0 then
        if until_floor + 2 < remaining then -- never lengthen; the 2 ms are acquire.lua's slack
            redis.call('PEXPIRE', KEYS[1], string.format('%d', until_floor + 2))
        end
        return 1
    end
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
