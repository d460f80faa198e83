-- Removes an entity record and its configuration levels (its buckets are removed after, by the caller).
-- KEYS[1] the record, KEYS[2] its set of resources with a level, KEYS[3] the configuration version;
-- ARGV[1] the prefix of children sets, ARGV[2] the entity id, ARGV[3] the prefix of its level keys.
-- Returns 1 when there was a record.
local existed = redis.call('EXISTS', KEYS[1])
local old = redis.call('HGET', KEYS[1], 'par')
if old then
  redis.call('SREM', ARGV[1] .. old, ARGV[2])
end
for _, resource in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('DEL', ARGV[3] .. resource)
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('INCR', KEYS[3])
return existed
