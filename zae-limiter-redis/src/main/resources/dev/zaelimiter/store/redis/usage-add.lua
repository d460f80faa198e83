-- Adds one process's counts to one usage period, once per (writer, sequence).
-- KEYS[1] the period (hash: per limit c#, a#, r#, o#, b#, d# counters; per writer w#{writer} = last sequence),
-- KEYS[2] the resource's index, KEYS[3] the entity's index (sorted sets of periods by start).
-- ARGV[1] the writer field, ARGV[2] its sequence, ARGV[3] the period start, ARGV[4] the period in the indexes,
-- ARGV[5] time to live in ms, ARGV[6] the oldest start the indexes keep, then field, increment pairs.
-- Returns 1 when the counts were added, 0 when that writer's sequence (or a later one) already was.
local last = redis.call('HGET', KEYS[1], ARGV[1])
if last and tonumber(last) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 7, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[6])
end
return 1
