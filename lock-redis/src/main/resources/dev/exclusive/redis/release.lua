-- Releases a lock held by the given owner, then tells waiters.
--
-- KEYS[1]  the lock's hash
-- ARGV[1]  owner id of the releasing handle
-- ARGV[2]  the channel that waiters listen on
-- ARGV[3]  the full lock name (the message)
--
-- Returns 1 if released, 0 if the lock is free, expired, or held by another owner (then it is left as it is).
-- An expired hash reads as absent (or has PTTL 0 in its last millisecond), so a late release never frees
-- the next holder.

if redis.call('PTTL', KEYS[1]) <= 0 or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
    return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
