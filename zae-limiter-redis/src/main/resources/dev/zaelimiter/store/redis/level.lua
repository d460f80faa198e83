-- Sets one field of a configuration level ('' removes it) and counts the change.
-- KEYS[1] the level (hash), KEYS[2] the configuration version, KEYS[3] (entity levels only) the entity's set of
-- resources with a level; ARGV[1] field, ARGV[2] value, ARGV[3] the resource (member of KEYS[3]).
-- Returns the new configuration version.
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
if #KEYS > 2 then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('SADD', KEYS[3], ARGV[3])
  else
    redis.call('SREM', KEYS[3], ARGV[3])
  end
end
return redis.call('INCR', KEYS[2])
