-- Creates or replaces an entity record and keeps its parent's set of children in step.
-- KEYS[1] the record (hash), KEYS[2] the configuration version; ARGV[1] 'create' or 'update', ARGV[2] the prefix
-- of children sets, ARGV[3] the entity id, then field, value pairs.
-- Returns the new configuration version, -1 when creating an entity that exists, -2 when updating one that does not.
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[1] == 'create' and exists then
  return -1
end
if ARGV[1] == 'update' and not exists then
  return -2
end
local old = redis.call('HGET', KEYS[1], 'par')
if old then
  redis.call('SREM', ARGV[2] .. old, ARGV[3])
end
redis.call('DEL', KEYS[1])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  if ARGV[i] == 'par' then
    redis.call('SADD', ARGV[2] .. ARGV[i + 1], ARGV[3])
  end
end
return redis.call('INCR', KEYS[2])
