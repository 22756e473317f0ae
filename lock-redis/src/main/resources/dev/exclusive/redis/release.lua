-- Releases a lock held by the given owner; tells waiters of other store instances, if any wait.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
-- KEYS[2]  optional: this call's receipt, for a client that may send the call again (Cluster)
-- ARGV[1]  owner id of the releasing handle, escaped, followed by "\n"
-- ARGV[2]  id of the releasing store instance, which wakes its own waiters itself
-- ARGV[3]  the command that tells waiters: PUBLISH, or SPUBLISH (Cluster on Redis 7+: only the key's shard hears)
-- ARGV[4]  the channel: exclusive:released for PUBLISH; for SPUBLISH, one per lock whose hash tag is the key's,
--          so it lives in the key's slot
-- ARGV[5]  with KEYS[2]: how long the receipt is kept, in milliseconds; the client's resend window
--
-- Returns 1 if released, 0 if the lock is free, expired, or held by another owner (then it is left as it is).
-- An expired lease reads as absent, so a late release never frees the next holder; a lease in its last
-- millisecond (PTTL 0: Redis still keeps it, every script treats it as expired and acquire.lua writes over it) is
-- expired here too, so its owner hears that it lost the hold, not that it released it. The lease key is published
-- on ARGV[4] only when a waiter of another store instance recorded itself on the lease (wait.lua):
-- a release nobody waits for costs a GET, a PTTL and a DEL. A lease of the previous layout (a hash) is released as that
-- layout did, and always published.

-- What a call sent again does: a Cluster client sends a script again when the reply of its first run was lost
-- (a read timeout), and that first run may have freed the lock; the second then finds it free, or another's. With
-- KEYS[2] (a key of this one call, see RedisKeys.receiptKey), every run records its answer there for ARGV[5]
-- milliseconds (one that freed nothing too), and a run that finds it recorded answers the same and touches
-- nothing: by then the lock may be
-- another holder's, or its owner's again (a handle restored from the token shares the owner id), and freeing it
-- a second time would free that hold.
local function answer(outcome)
    if KEYS[2] then
        redis.call('SET', KEYS[2], outcome, 'PX', ARGV[5])
    end
    return outcome
end
if KEYS[2] then
    local earlier = redis.call('GET', KEYS[2])
    if earlier then
        return tonumber(earlier)
    end
end

local lease = redis.pcall('GET', KEYS[1])
if type(lease) == 'string' then
    if string.find(lease, ARGV[1], 1, true) ~= 1 then -- plain find, no copy: does the lease start with it?
        return answer(0)
    end
    if redis.call('PTTL', KEYS[1]) <= 0 then -- its last millisecond: expired, as for every other script
        return answer(0)
    end
    redis.call('DEL', KEYS[1])
    if string.byte(lease, #ARGV[1] + 1) ~= 10 then -- someone waits: not a line feed right after the owner
        local waiters = string.match(lease, '^[^\n]*', #ARGV[1] + 1)
        if waiters ~= ARGV[2] then
            redis.call(ARGV[3], ARGV[4], KEYS[1])
        end
    end
    return answer(1)
end
if not lease or redis.call('PTTL', KEYS[1]) <= 0 or redis.call('HGET', KEYS[1], 'owner') .. '\n' ~= ARGV[1] then
    return answer(0)
end
redis.call('DEL', KEYS[1])
redis.call(ARGV[3], ARGV[4], KEYS[1])
return answer(1)
