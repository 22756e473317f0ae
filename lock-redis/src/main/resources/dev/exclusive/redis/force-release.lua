-- Releases a lock whoever holds it, then tells waiters.
--
-- KEYS[1]  the lock's hash
-- ARGV[1]  the channel that waiters listen on
-- ARGV[2]  the full lock name (the message)
--
-- Returns 1 if a live lease was removed, 0 if the lock was free or expired.

local live = redis.call('PTTL', KEYS[1]) > 0
if redis.call('DEL', KEYS[1]) == 0 or not live then
    return 0
end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
