-- Releases a lock held by the given owner, but not before a minimum hold has passed since its acquisition.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
-- KEYS[2]  optional: this call's receipt, for a client that may send the call again (Cluster)
-- ARGV[1]  owner id of the releasing handle, escaped, followed by "\n"
-- ARGV[2]  id of the releasing store instance, which wakes its own waiters itself
-- ARGV[3]  minimum hold in milliseconds, counted from the hold's acquisition; above 0
-- ARGV[4]  the command that tells waiters, PUBLISH or SPUBLISH (see release.lua)
-- ARGV[5]  the channel (see release.lua)
-- ARGV[6]  with KEYS[2]: how long the receipt is kept, in milliseconds; the client's resend window
--
-- Returns 2 if released (as release.lua does), 1 if kept until the floor (acquisition + minimum hold) when that is
-- still ahead: the lease then ends at the floor, or earlier if it already did, with owner and fence kept and
-- nothing published; waiters see it expire. Returns 0 if the lock is free, expired, or held by another owner.
-- The time since acquisition is the lease's <span> minus its PTTL: whole milliseconds of Redis's own clock, read
-- without TIME. A lease of the previous layout (a hash) counts from its "acquired" field by TIME, as it did.

-- What a call sent again does: a Cluster client sends a script again when the reply of its first run was lost
-- (a read timeout), and that first run may have freed the lock; the second then finds it free, or another's. With
-- KEYS[2] (a key of this one call, see RedisKeys.receiptKey), every run records its answer there for ARGV[6]
-- milliseconds (one that freed nothing too), and a run that finds it recorded answers the same and touches
-- nothing: by then the lock may be
-- another holder's, or its owner's again (a handle restored from the token shares the owner id), and freeing it
-- a second time would free that hold.
local function answer(outcome)
    if KEYS[2] then
        redis.call('SET', KEYS[2], outcome, 'PX', ARGV[6])
    end
    return outcome
end
if KEYS[2] then
    local earlier = redis.call('GET', KEYS[2])
    if earlier then
        return tonumber(earlier)
    end
end

local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 then
    return answer(0)
end
local lease = redis.pcall('GET', KEYS[1])
local until_floor
if type(lease) == 'string' then
    local owner, waiters, fence, span, holder = string.match(lease, '^(.-\n)(.-)\n(.-)\n(.-)\n(.*)$')
    if owner ~= ARGV[1] then
        return answer(0)
    end
    local elapsed = tonumber(span) - remaining
    until_floor = tonumber(ARGV[3]) - elapsed
    if until_floor > 0 then
        if until_floor + 2 < remaining then -- never lengthen; the 2 ms are acquire.lua's slack
            redis.call('SET', KEYS[1], owner .. waiters .. '\n' .. fence .. '\n'
                    .. string.format('%d', elapsed + until_floor + 2) .. '\n' .. holder,
                    'PX', string.format('%d', until_floor + 2))
        end
        return answer(1)
    end
    redis.call('DEL', KEYS[1])
    if waiters ~= '' and waiters ~= ARGV[2] then
        redis.call(ARGV[4], ARGV[5], KEYS[1])
    end
    return answer(2)
end
local held = redis.call('HMGET', KEYS[1], 'owner', 'acquired') -- the previous layout
if held[1] == false or held[1] .. '\n' ~= ARGV[1] then
    return answer(0)
end
local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
until_floor = tonumber(held[2] or '0') + tonumber(ARGV[3]) - now_ms
if until_floor > 0 then
    if until_floor + 2 < remaining then
        redis.call('PEXPIRE', KEYS[1], string.format('%d', until_floor + 2))
    end
    return answer(1)
end
redis.call('DEL', KEYS[1])
redis.call(ARGV[4], ARGV[5], KEYS[1])
return answer(2)
