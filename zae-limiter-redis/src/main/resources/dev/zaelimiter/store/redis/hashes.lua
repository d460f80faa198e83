-- Reads several hashes at once. KEYS the hashes (all in one slot on a cluster).
-- Returns the fields of each as a flat list (empty for a key that is gone).
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HGETALL', KEYS[i])
end
return out
