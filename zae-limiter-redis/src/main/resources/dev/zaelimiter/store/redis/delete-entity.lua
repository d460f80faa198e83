-- Removes an entity record and its configuration levels (its buckets are removed after, by the caller).
-- KEYS[1] the record, KEYS[2] its set of resources with a level, KEYS[3] the configuration version, KEYS[4] the set
-- of children of the parent the caller read (the record itself when none), KEYS[5..] the levels of the resources
-- in ARGV[3..]; ARGV[1] the entity id, ARGV[2] the parent the caller read ('' for none).
-- Returns 1 when there was a record, 0 when not, -3 when the parent or the resources are not the ones the caller
-- read (it reads them and sends again).
local old = redis.call('HGET', KEYS[1], 'par') or ''
if old ~= ARGV[2] or redis.call('SCARD', KEYS[2]) ~= #ARGV - 2 then
  return -3
end
for i = 3, #ARGV do
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 0 then
    return -3
  end
end
local existed = redis.call('EXISTS', KEYS[1])
if old ~= '' then
  redis.call('SREM', KEYS[4], ARGV[1])
end
for i = 5, #KEYS do
  redis.call('DEL', KEYS[i])
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('INCR', KEYS[3])
return existed
