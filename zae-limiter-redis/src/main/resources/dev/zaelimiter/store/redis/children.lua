-- The records of an entity's children. KEYS[1] the set of children ids; ARGV[1] the prefix of entity records.
-- Returns the fields of each record as a flat list (an id whose record is gone gives an empty list).
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  out[#out + 1] = redis.call('HGETALL', ARGV[1] .. id)
end
return out
