-- Renews the lease of the owner that holds a lock; fence and acquisition time stay.
--
-- KEYS[1]  the lock's lease (see acquire.lua)
-- KEYS[2]  the lock's fence counter, whose retention is pushed out past the new expiry
-- ARGV[1]  owner id of the extending handle, escaped, followed by "\n"
-- ARGV[2]  the new lease in milliseconds from now: the ttl plus acquire.lua's 2 ms of slack
-- ARGV[3]  new ttl + fence retention in milliseconds: the least time the counter is kept after this call
--
-- Returns 1 if extended, 0 if the lock is free, expired, or held by another owner. The lease's <span> grows by
-- what the renewal adds, so that <span> - PTTL stays the time since acquisition. A lease of the previous layout
-- (a hash) is renewed as that layout did.

local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 then
    return 0
end
local lease = redis.pcall('GET', KEYS[1])
if type(lease) == 'string' then
    local owner, waiters, fence, span, holder = string.match(lease, '^(.-\n)(.-)\n(.-)\n(.-)\n(.*)$')
    if owner ~= ARGV[1] then
        return 0
    end
    redis.call('SET', KEYS[1], owner .. waiters .. '\n' .. fence .. '\n'
            .. string.format('%d', tonumber(span) - remaining + tonumber(ARGV[2])) .. '\n' .. holder,
            'PX', ARGV[2])
else
    local owner = redis.call('HGET', KEYS[1], 'owner') -- the previous layout
    if owner == false or owner .. '\n' ~= ARGV[1] then
        return 0
    end
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then
    redis.call('PEXPIRE', KEYS[2], string.format('%d', 2 * tonumber(ARGV[3])))
end
return 1
