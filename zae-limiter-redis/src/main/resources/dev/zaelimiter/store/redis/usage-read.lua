-- The usage periods of one index whose start lies in [ARGV[1], ARGV[2]).
-- KEYS[1] the index (sorted set of periods by start); ARGV[3] the prefix of period keys.
-- Returns, per period, its name in the index and the fields of its hash (empty once it expired).
local out = {}
for _, period in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '(' .. ARGV[2])) do
  out[#out + 1] = period
  out[#out + 1] = redis.call('HGETALL', ARGV[3] .. period)
end
return out
