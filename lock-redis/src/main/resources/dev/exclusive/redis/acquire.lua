-- Acquires a lock if nobody holds it; answers a retry by the holder itself with the hold it already has.
--
-- KEYS[1]  the lock's lease: a string "<owner>\n<waiters>\n<fence>\n<span>\n<holder>" that expires by PX
-- KEYS[2]  the lock's fence counter: the last fence granted
-- ARGV[1]  owner id of the acquiring handle, escaped (no newline), followed by "\n"
-- ARGV[2]  holder description (LockHolder.encode())
-- ARGV[3]  the lease in milliseconds: the ttl plus 2 ms of slack (Redis counts whole milliseconds from a
--          truncated clock, and a lease in its last millisecond counts as expired, so without the slack the key
--          could end up to 2 ms before the holder's own estimate: start of its call + ttl)
-- ARGV[4]  ttl + fence retention in milliseconds: how long the counter is kept after this call (a retry by the
--          holder itself keeps it at least that long, pushing it out to twice that when it would end sooner)
--
-- Returns the fence (an integer) when acquired; {remaining ms} when another owner holds it (-1 for a key without
-- expiry); {fence, elapsed ms since that hold began} when ARGV[1] itself already holds a live lease (a client
-- resent the script after a read timeout, and the first run had taken the lock): its lease is renewed to
-- ARGV[3] as extend.lua would, and the caller never hears busy about its own hold.
--
-- <waiters> is empty, the id of the one store instance whose threads wait (wait.lua), or "*" for several.
-- <span> is the lease's length from its acquisition to its current expiry, so that the time since acquisition
-- is <span> - PTTL without reading the clock. The fence comes from the Redis clock (TIME) and the last fence
-- (the counter), so fences keep increasing after the counter expired, was lost, or went back to an older value,
-- as long as that clock moved forward.
-- A lease is live while its PTTL is at least 1 ms, in every script: in its last millisecond Redis still keeps
-- the key (PTTL 0), but every script treats it as expired, and this one writes over it.
-- A lease written by the previous layout (a hash: owner, holder, acquired, fence) is read as a busy lease, its
-- own owner's retry renewing it as that layout did; it is never written over while live.

local remaining = redis.call('PTTL', KEYS[1])
if remaining > 0 or remaining == -1 then
    local lease = redis.pcall('GET', KEYS[1])
    if type(lease) == 'string' then
        local owner, waiters, fence, span, holder = string.match(lease, '^(.-\n)(.-)\n(.-)\n(.-)\n(.*)$')
        if owner ~= ARGV[1] or remaining == -1 then
            return {remaining}
        end
        local elapsed = tonumber(span) - remaining
        redis.call('SET', KEYS[1], owner .. waiters .. '\n' .. fence .. '\n'
                .. string.format('%d', elapsed + tonumber(ARGV[3])) .. '\n' .. holder, 'PX', ARGV[3])
        if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then
            redis.call('PEXPIRE', KEYS[2], string.format('%d', 2 * tonumber(ARGV[4])))
        end
        return {tonumber(fence), elapsed}
    end
    local held = redis.call('HMGET', KEYS[1], 'owner', 'acquired', 'fence') -- the previous layout
    if held[1] == false or held[1] .. '\n' ~= ARGV[1] or not (held[2] and held[3]) or remaining == -1 then
        return {remaining}
    end
    local time = redis.call('TIME')
    local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return {tonumber(held[3]), now_ms - tonumber(held[2])}
end

-- The fence: the Redis clock in microseconds, or one above the last fence where that is not below the clock (two
-- grants in one microsecond, a clock stepped back). A counter that only counted up would hand out a fence again
-- from an OLDER counter: a replica promoted after missing the last grants, a restart from a snapshot or from an
-- AOF that lost its last second. The clock, seconds past every grant of the old master by then, covers those.
-- One write sets the counter and its retention and answers the last fence.
local time = redis.call('TIME')
local fence = math.max(2, tonumber(time[1]) * 1000000 + tonumber(time[2]))
local last = redis.call('SET', KEYS[2], string.format('%d', fence), 'PX', ARGV[4], 'GET')
if last and tonumber(last) >= fence then
    fence = tonumber(last) + 1
    redis.call('SET', KEYS[2], string.format('%d', fence), 'PX', ARGV[4])
end
redis.call('SET', KEYS[1], ARGV[1] .. '\n' .. string.format('%d', fence) .. '\n' .. ARGV[3] .. '\n' .. ARGV[2],
        'PX', ARGV[3])
return fence
