-- Reads the newest records of the store's audit trail with the Redis clock, to leave out those past the age.
--
-- KEYS[1]  the audit trail (see audit.lua)
-- ARGV[1]  the most records to return
--
-- Returns { Redis time in ms, record, record, ... }, newest first.

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local records = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
table.insert(records, 1, now)
return records
