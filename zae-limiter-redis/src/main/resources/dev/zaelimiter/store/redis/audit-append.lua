-- Keeps one audit event: its hash, and its sort key in the log of everything and in the logs of its target.
-- KEYS[1] the event (hash), KEYS[2..] the logs (sorted sets, all scores 0: ordered by sort key);
-- ARGV[1] the sort key, ARGV[2] time to live in ms, ARGV[3] the sort key below which the logs forget events (their
-- hashes expired), then field, value pairs.
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], 0, ARGV[1])
  redis.call('ZREMRANGEBYLEX', KEYS[i], '-', '(' .. ARGV[3])
end
return 1
