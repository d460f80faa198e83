-- Decides one call on every bucket it touches, all or nothing, in one of two modes.
--
-- KEYS[1..n]  the buckets (hashes: v = token of the last write, s = state, x = horizon in epoch ms, k = stamp of the
--             limits it was written under, d = deadline in epoch ms until which the decide mode may trust s, '' for
--             none)
-- KEYS[n+1]   the configuration version, only when ARGV[2] is '1'
-- ARGV[1]     n
-- ARGV[2]     '1' to answer with the configuration version, '' to answer '' (the caller then keeps its
--             configuration by its stampTtl alone)
-- ARGV[3]     '' for the write mode; for the decide mode the instant of the call (epoch ms)
--
-- Write mode: the caller computed each bucket's next state (BucketState in zae-limiter-core) from the state it last
-- saw, and each write is applied only if no other write came between. Per bucket i, seven values from
-- ARGV[4 + 7(i-1)]: expected token ('' = no bucket), new token ('' = check only, write nothing), state, horizon,
-- time to live in ms, stamp, deadline. The time to live: for a write, the key's (0 = none: the bucket owes something
-- that no known instant pays back); for a check, the one the limits in force ask for ('' = any): a key that would go
-- more than half an hour sooner (the caller keeps an hour for clocks) gets it, 0 making it keep none.
-- Returns {1, version} when every token matched (and every write was made), otherwise writes nothing and returns
-- {0, version, then token, state, horizon, PTTL, stamp and deadline of each bucket}.
--
-- Decide mode: the script refills, checks and debits each bucket from its stored state, with parameters the caller
-- computed from the limits in force (so the rules stay those of BucketState: what a limit's refill is, its capacity,
-- its grid), for limits that drip or reset on a calendar, without sessions or slots. Per bucket, from the next
-- argument on: new token, stamp, horizon of a write now, deadline of a write now, 'a' (acquire: hard limits are
-- checked) or 'j' (adjust: never refused, a refund never lifts a balance above the capacity), '1' for a count-only
-- debit else '', the number of limits m, then per limit: name, capacity, amount (milli-tokens),
-- 'h' for a hard limit else '', refill amount and period (reduced by their gcd; 0 0 for a limit that does not drip),
-- then four values for its time to live: for a dripping limit the capacity it fills to, the refill amount and
-- period it fills at, and a wait added to that; for one that does not drip, its next reset (0: none), '', '', ''.
-- Per limit, then, ten values.
-- Returns {1, version, then each bucket's new state} when every bucket was written; {0, version, then per bucket
-- the six values above} when a hard limit refused it (nothing written; keys that go too soon extended); and
-- {-1, version, the same} when the stored state is outside what this mode decides (another stamp, a deadline
-- passed, a clock behind the last write, a session or slot, a number at or beyond 2^53): the caller then decides in
-- write mode from the states it got. Every number handled is an integer below 2^53, so doubles hold it exactly.
local n = tonumber(ARGV[1])
local version = ''
if ARGV[2] == '1' then
  version = redis.call('GET', KEYS[n + 1]) or '0'
end
local HALF_HOUR = 1800000

local function extend(key, ttl)
  local left = redis.call('PTTL', key)
  if left >= 0 and ttl == 0 then
    redis.call('PERSIST', key)
  elseif left >= 0 and left < ttl - HALF_HOUR then
    redis.call('PEXPIRE', key, ttl)
  end
end

local function stored()
  local out = {}
  for i = 1, n do
    local h = redis.call('HMGET', KEYS[i], 'v', 's', 'x', 'k', 'd')
    out[#out + 1] = h[1] or ''
    out[#out + 1] = h[2] or ''
    out[#out + 1] = h[3] or ''
    out[#out + 1] = redis.call('PTTL', KEYS[i])
    out[#out + 1] = h[4] or ''
    out[#out + 1] = h[5] or ''
  end
  return out
end

local function answer(code, values)
  local out = {code, version}
  for _, value in ipairs(values) do
    out[#out + 1] = value
  end
  return out
end

if ARGV[3] == '' then
  for i = 1, n do
    if (redis.call('HGET', KEYS[i], 'v') or '') ~= ARGV[4 + 7 * (i - 1)] then
      return answer(0, stored())
    end
  end
  for i = 1, n do
    local at = 4 + 7 * (i - 1)
    if ARGV[at + 1] ~= '' then
      redis.call('HSET', KEYS[i], 'v', ARGV[at + 1], 's', ARGV[at + 2], 'x', ARGV[at + 3], 'k', ARGV[at + 5],
          'd', ARGV[at + 6])
      local ttl = tonumber(ARGV[at + 4])
      if ttl > 0 then
        redis.call('PEXPIRE', KEYS[i], ttl)
      else
        redis.call('PERSIST', KEYS[i])
      end
    elseif ARGV[at + 4] ~= '' then
      extend(KEYS[i], tonumber(ARGV[at + 4]))
    end
  end
  return {1, version}
end

local SAFE = 9007199254740992
local NO_SESSION = '-9223372036854775808\t'
local HOUR = 3600000
local MAX_TTL = 632448000000
local now = tonumber(ARGV[3])

-- an integer below 2^53 in magnitude, or nil
local function exact(text)
  local x = tonumber(text)
  if x == nil or x >= SAFE or x <= -SAFE or x ~= math.floor(x) then
    return nil
  end
  return x
end

-- floor(a / m) and a mod m, exactly, for integers 0 <= a < 2^53 and 0 < m < 2^53
local function divmod(a, m)
  local q = math.floor(a / m)
  local r = a - q * m
  if r < 0 then
    q, r = q - 1, r + m
  elseif r >= m then
    q, r = q + 1, r - m
  end
  return q, r
end

-- (x * y) mod m for integers 0 <= x, y and 0 < m < 2^52, by doubling where the product could pass 2^53
local function mulmod(x, y, m)
  local _, a = divmod(x, m)
  local _, b = divmod(y, m)
  if a * b < SAFE then
    local _, r = divmod(a * b, m)
    return r
  end
  local r = 0
  while b > 0 do
    if b % 2 == 1 then
      r = r + a
      if r >= m then r = r - m end
    end
    a = a + a
    if a >= m then a = a - m end
    b = math.floor(b / 2)
  end
  return r
end

-- the balance of a dripping limit that held b at last, refilled to now (BucketMath.refill), or nil when the credit
-- cannot be computed exactly and does not surely fill it
local function refill(b, cap, amount, period, last)
  if b >= cap or now <= last then
    return math.min(b, cap)
  end
  local product = (now - last) * amount
  if product >= SAFE / 2 then
    if product / period - 2 >= cap - b then
      return cap
    end
    return nil
  end
  local credit = divmod(product + mulmod(last, amount, period), period)
  return math.min(cap, b + credit)
end

-- the time to live of a bucket whose limits hold balances at now, with horizon ends
local function timeToLive(limits, balances, ends)
  local untilAt = ends
  for j, l in ipairs(limits) do
    if balances[j] < l.cap then
      local wait
      if l.period > 0 then
        wait = math.ceil((l.fill - balances[j]) * l.fillPeriod / l.fillAmount) + 1 + l.extra
      elseif l.reset > 0 then
        wait = l.reset - now
      else
        return 0
      end
      untilAt = math.max(untilAt, now + wait)
    end
  end
  local ttl = untilAt - math.min(now, untilAt) + HOUR
  if ttl > MAX_TTL then
    return 0
  end
  return ttl
end

local function text(x)
  return string.format('%.0f', x)
end

local buckets = {}
local cursor = 4
local function nextArg()
  local value = ARGV[cursor]
  cursor = cursor + 1
  return value
end
for i = 1, n do
  local b = {token = nextArg(), stamp = nextArg(), ends = nextArg(), deadline = nextArg(), mode = nextArg(),
             countOnly = nextArg() == '1', limits = {}}
  for j = 1, tonumber(nextArg()) do
    local l = {name = nextArg(), cap = tonumber(nextArg()), amount = tonumber(nextArg()), hard = nextArg() == 'h',
               refillAmount = tonumber(nextArg()), period = tonumber(nextArg())}
    if l.period > 0 then
      l.fill, l.fillAmount, l.fillPeriod, l.extra = tonumber(nextArg()), tonumber(nextArg()), tonumber(nextArg()),
          tonumber(nextArg())
    else
      l.reset = tonumber(nextArg())
      cursor = cursor + 3
    end
    b.limits[j] = l
  end
  buckets[i] = b
end

-- each bucket refilled to now: its balances and consumption per limit, whether it is stored, and whether full
local balances, consumed, present, full = {}, {}, {}, {}
for i, b in ipairs(buckets) do
  local h = redis.call('HMGET', KEYS[i], 'v', 's', 'x', 'k', 'd')
  local bal, con = {}, {}
  present[i] = h[1] ~= false
  if present[i] then
    if h[4] ~= b.stamp or not h[5] or h[5] ~= '' and tonumber(h[5]) <= now then
      return answer(-1, stored())
    end
    local lines, last = {}, nil
    for line in string.gmatch(h[2], '[^\n]+') do
      if last == nil then
        last = exact(line)
      else
        local name, balance, count, rest = string.match(line, '^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$')
        lines[name] = {balance, count, rest}
      end
    end
    if last == nil or last > now then
      return answer(-1, stored())
    end
    for j, l in ipairs(b.limits) do
      local line = lines[l.name]
      if line == nil then
        bal[j], con[j] = l.cap, 0
      else
        local balance, count = exact(line[1]), exact(line[2])
        if line[3] ~= NO_SESSION or balance == nil or count == nil then
          return answer(-1, stored())
        end
        if l.period > 0 then
          balance = refill(balance, l.cap, l.refillAmount, l.period, last)
          if balance == nil then
            return answer(-1, stored())
          end
        else
          balance = math.min(balance, l.cap)
        end
        bal[j], con[j] = balance, count
      end
    end
  else
    for j, l in ipairs(b.limits) do
      bal[j], con[j] = l.cap, 0
    end
  end
  full[i] = true
  for j, l in ipairs(b.limits) do
    full[i] = full[i] and bal[j] >= l.cap
  end
  if present[i] and full[i] and tonumber(h[3] or '0') <= now then
    for j = 1, #b.limits do
      con[j] = 0
    end
  end
  balances[i], consumed[i] = bal, con
end

for i, b in ipairs(buckets) do
  if b.mode == 'a' and not b.countOnly then
    for j, l in ipairs(b.limits) do
      if l.hard and l.amount > 0 and balances[i][j] < l.amount then
        for k = 1, n do
          if present[k] and not full[k] then
            extend(KEYS[k], timeToLive(buckets[k].limits, balances[k], tonumber(redis.call('HGET', KEYS[k], 'x'))))
          end
        end
        return answer(0, stored())
      end
    end
  end
end

for i, b in ipairs(buckets) do
  for j, l in ipairs(b.limits) do
    local balance, count = balances[i][j], consumed[i][j] + l.amount
    if not b.countOnly then
      balance = balance - l.amount
    end
    if b.mode == 'j' then
      balance = math.min(balance, l.cap)
    end
    if balance >= SAFE or balance <= -SAFE or count >= SAFE or count <= -SAFE then
      return answer(-1, stored())
    end
    balances[i][j], consumed[i][j] = balance, count
  end
end

local written = {}
for i, b in ipairs(buckets) do
  local parts = {text(now)}
  for j, l in ipairs(b.limits) do
    parts[#parts + 1] = l.name .. '\t' .. text(balances[i][j]) .. '\t' .. text(consumed[i][j]) .. '\t' .. NO_SESSION
  end
  written[i] = table.concat(parts, '\n')
  redis.call('HSET', KEYS[i], 'v', b.token, 's', written[i], 'x', b.ends, 'k', b.stamp, 'd', b.deadline)
  local ttl = timeToLive(b.limits, balances[i], tonumber(b.ends))
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[i], ttl)
  else
    redis.call('PERSIST', KEYS[i])
  end
end
return answer(1, written)
