-- Releases a lock whoever holds it, or only the one hold an operator was shown; tells waiters of other store
-- instances, if any wait.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
-- KEYS[2]  optional: this call's receipt, for a client that may send the call again (Cluster)
-- ARGV[1]  id of the releasing store instance, which wakes its own waiters itself
-- ARGV[2]  the command that tells waiters, PUBLISH or SPUBLISH (see release.lua)
-- ARGV[3]  the channel (see release.lua)
-- ARGV[4]  how long the receipt is kept, in milliseconds (the client's resend window); read only with KEYS[2]
-- ARGV[5]  optional: the owner id of the one hold to release, escaped, followed by "\n"
-- ARGV[6]  with ARGV[5]: that hold's fence, in decimal
--
-- Returns 1 if a live lease was removed, 0 if the lock was free or expired, or (with ARGV[5]) held by another
-- owner or by the same owner with another fence (then it is left as it is). A lease of the previous layout (a
-- hash) is always published.

-- What a call sent again does: a Cluster client sends a script again when the reply of its first run was lost
-- (a read timeout), and that first run may have freed the lock; the second then finds it free, or another's. With
-- KEYS[2] (a key of this one call, see RedisKeys.receiptKey), every run records its answer there for ARGV[4]
-- milliseconds (one that freed nothing too), and a run that finds it recorded answers the same and touches
-- nothing: by then the lock may be
-- another holder's, or its owner's again (a handle restored from the token shares the owner id), and freeing it
-- a second time would free that hold.
local function answer(outcome)
    if KEYS[2] then
        redis.call('SET', KEYS[2], outcome, 'PX', ARGV[4])
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
if remaining == -2 then
    return answer(0)
end
local lease = redis.pcall('GET', KEYS[1])
if ARGV[5] then
    local owner, fence
    if type(lease) == 'string' then
        owner, fence = string.match(lease, '^(.-\n)[^\n]*\n([^\n]*)')
    else
        local held = redis.call('HMGET', KEYS[1], 'owner', 'fence') -- the previous layout
        owner, fence = held[1] and held[1] .. '\n', held[2]
    end
    if owner ~= ARGV[5] or fence ~= ARGV[6] then
        return answer(0)
    end
end
redis.call('DEL', KEYS[1])
if remaining == 0 then
    return answer(0)
end
local waiters = type(lease) == 'string' and string.match(lease, '^[^\n]*\n([^\n]*)') or '*'
if waiters ~= '' and waiters ~= ARGV[1] then
    redis.call(ARGV[2], ARGV[3], KEYS[1])
end
return answer(1)
