-- Appends one record to the store's audit trail, stamped with the Redis clock, and keeps the trail bounded.
--
-- KEYS[1]  the audit trail, a list of '<Redis time in ms>|<encoded record>', newest first
-- ARGV[1]  the encoded record (dev.exclusive.AuditRecord#encode)
-- ARGV[2]  the most records kept
-- ARGV[3]  the oldest a kept record may be, in ms
--
-- Returns the Redis time in ms the record was stamped with. The count is cut with LTRIM; records past the age are
-- popped from the old end (at most as many as the trail holds, so the script always ends).

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('LPUSH', KEYS[1], now .. '|' .. ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local oldest = now - tonumber(ARGV[3])
for _ = 1, tonumber(ARGV[2]) do
    local last = redis.call('LINDEX', KEYS[1], -1)
    local stamped = last and tonumber(string.match(last, '^(%d+)|'))
    if not stamped or stamped >= oldest then
        break
    end
    redis.call('RPOP', KEYS[1])
end
return now
