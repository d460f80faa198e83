-- Creates or replaces an entity record and keeps its parents' sets of children in step.
-- KEYS[1] the record (hash), KEYS[2] the configuration version, KEYS[3] the set of children of the parent the caller
-- last read (the record itself when none), KEYS[4] that of the new parent (the record itself when none);
-- ARGV[1] 'create' or 'update', ARGV[2] the entity id, ARGV[3] the parent the caller last read ('' for none), then
-- field, value pairs.
-- Returns the new configuration version, -1 when creating an entity that exists, -2 when updating one that does not,
-- -3 when the record's parent is not the one the caller read (it reads it and sends again).
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[1] == 'create' and exists then
  return -1
end
if ARGV[1] == 'update' and not exists then
  return -2
end
local old = redis.call('HGET', KEYS[1], 'par') or ''
if old ~= ARGV[3] then
  return -3
end
if old ~= '' then
  redis.call('SREM', KEYS[3], ARGV[2])
end
redis.call('DEL', KEYS[1])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  if ARGV[i] == 'par' then
    redis.call('SADD', KEYS[4], ARGV[2])
  end
end
return redis.call('INCR', KEYS[2])
