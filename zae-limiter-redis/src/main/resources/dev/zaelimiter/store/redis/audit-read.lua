-- Up to ARGV[2] events of one log, newest first, before ARGV[1] ('+' for the newest, else '(' and a sort key).
-- KEYS[1] the log; ARGV[3] the prefix of event keys.
-- Returns, per event, its sort key and the fields of its hash (empty once it expired).
local out = {}
for _, key in ipairs(redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], '-', 'LIMIT', 0, ARGV[2])) do
  out[#out + 1] = key
  out[#out + 1] = redis.call('HGETALL', ARGV[3] .. key)
end
return out
