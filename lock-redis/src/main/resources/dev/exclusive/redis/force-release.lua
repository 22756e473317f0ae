-- Releases a lock whoever holds it; tells waiters of other store instances, if any wait.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
-- ARGV[1]  id of the releasing store instance, which wakes its own waiters itself
-- ARGV[2]  the command that tells waiters, PUBLISH or SPUBLISH (see release.lua)
-- ARGV[3]  the channel (see release.lua)
--
-- Returns 1 if a live lease was removed, 0 if the lock was free or expired. A lease of the previous layout (a
-- hash) is always published.

local remaining = redis.call('PTTL', KEYS[1])
if remaining == -2 then
    return 0
end
local lease = redis.pcall('GET', KEYS[1])
redis.call('DEL', KEYS[1])
if remaining == 0 then
    return 0
end
local waiters = type(lease) == 'string' and string.match(lease, '^[^\n]*\n([^\n]*)') or '*'
if waiters ~= '' and waiters ~= ARGV[1] then
    redis.call(ARGV[2], ARGV[3], KEYS[1])
end
return 1
