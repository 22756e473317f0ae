-- Renews the lease of the owner that holds a lock; fence and acquisition time stay.
--
-- KEYS[1]  the lock's hash
-- KEYS[2]  the lock's fence counter, whose retention is pushed out past the new expiry
-- ARGV[1]  owner id of the extending handle
-- ARGV[2]  new ttl in milliseconds, counted from now
-- ARGV[3]  fence retention in milliseconds
--
-- Returns 1 if extended, 0 if the lock is free, expired, or held by another owner.

if redis.call('PTTL', KEYS[1]) <= 0 or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
    return 0
end
redis.call('PEXPIRE', KEYS[1], string.format('%d', tonumber(ARGV[2]) + 2)) -- the slack of acquire.lua
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) + tonumber(ARGV[3]) then
    redis.call('PEXPIRE', KEYS[2], string.format('%d', tonumber(ARGV[2]) + tonumber(ARGV[3])))
end
return 1
