-- Records that a waiter of this store instance waits for a lock, so that its release is published.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
-- ARGV[1]  id of the waiting store instance
--
-- Returns 1 if the lease is live (the waiter is recorded on it: <waiters> becomes ARGV[1] when empty, "*" when
-- another instance is recorded already), 0 if the lock is free or expired (the waiter tries again at once).
-- The record ends with the lease: a waiter that finds the next holder's lease records itself again. A lease of
-- the previous layout (a hash) is left as it is: its release is always published.

local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 and remaining ~= -1 then
    return 0
end
local lease = redis.pcall('GET', KEYS[1])
if type(lease) ~= 'string' then
    return 1
end
local owner, waiters, rest = string.match(lease, '^(.-\n)(.-)(\n.*)$')
if waiters == ARGV[1] or waiters == '*' or owner == nil then
    return 1
end
redis.call('SET', KEYS[1], owner .. (waiters == '' and ARGV[1] or '*') .. rest, 'KEEPTTL')
return 1
