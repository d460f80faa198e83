-- Decides one call on every bucket it touches, all or nothing: the caller computed each bucket's next state
-- (BucketState in zae-limiter-core, the same rules as the in-memory store) from the state it last saw, and each
-- write is applied only if no other write came between (the bucket's token is still the one the caller saw).
--
-- KEYS[1..n]  the buckets (hashes: v = token of the last write, s = state, x = horizon in epoch ms)
-- KEYS[n+1]   the configuration version, only when ARGV[2] is '1'
-- ARGV[1]     n
-- ARGV[2]     '1' to answer with the configuration version, '' to answer '' (the caller then keeps its
--             configuration by its stampTtl alone)
-- per bucket i, five values from ARGV[3 + 5(i-1)]:
--   expected token ('' = no bucket), new token ('' = check only, write nothing), state, horizon,
--   time to live in ms: for a write, the key's (0 = none: the bucket owes something that no known instant pays
--   back); for a check, the one the limits in force ask for ('' = any): a key that would go more than half an
--   hour sooner (the caller keeps an hour for clocks) gets it, 0 making it keep none
--
-- Returns {1, config version} when every token matched (and every write was made), otherwise writes nothing and
-- returns {0, config version, then token, state, horizon and PTTL of each bucket}, so that the caller decides again
-- from the states as they are without reading them first.
local n = tonumber(ARGV[1])
local matched = true
for i = 1, n do
  if (redis.call('HGET', KEYS[i], 'v') or '') ~= ARGV[3 + 5 * (i - 1)] then
    matched = false
    break
  end
end
local version = ''
if ARGV[2] == '1' then
  version = redis.call('GET', KEYS[n + 1]) or '0'
end
if not matched then
  local out = {0, version}
  for i = 1, n do
    local h = redis.call('HMGET', KEYS[i], 'v', 's', 'x')
    out[#out + 1] = h[1] or ''
    out[#out + 1] = h[2] or ''
    out[#out + 1] = h[3] or ''
    out[#out + 1] = redis.call('PTTL', KEYS[i])
  end
  return out
end
for i = 1, n do
  local at = 3 + 5 * (i - 1)
  if ARGV[at + 1] ~= '' then
    redis.call('HSET', KEYS[i], 'v', ARGV[at + 1], 's', ARGV[at + 2], 'x', ARGV[at + 3])
    local ttl = tonumber(ARGV[at + 4])
    if ttl > 0 then
      redis.call('PEXPIRE', KEYS[i], ttl)
    else
      redis.call('PERSIST', KEYS[i])
    end
  elseif ARGV[at + 4] ~= '' then
    local ttl = tonumber(ARGV[at + 4])
    local left = redis.call('PTTL', KEYS[i])
    if left >= 0 and ttl == 0 then
      redis.call('PERSIST', KEYS[i])
    elseif left >= 0 and left < ttl - 1800000 then
      redis.call('PEXPIRE', KEYS[i], ttl)
    end
  end
end
return {1, version}
