-- Reads everything that decides one entity on one resource, at one configuration version.
-- KEYS[1] the configuration version; KEYS[2..6] the entity record, its level on the resource, its default level,
-- the resource level and the system level (hashes).
-- Returns {version, then the fields of each hash as a flat list}.
local out = {redis.call('GET', KEYS[1]) or '0'}
for i = 2, #KEYS do
  out[i] = redis.call('HGETALL', KEYS[i])
end
return out
