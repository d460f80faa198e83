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
-- its grid), for limits that drip or reset on a calendar, without sessions or slots. ARGV[4] is '1' when the caller
-- sends its own decision too, made with BucketState on the buckets as it last saw them: then seven values per
-- bucket from ARGV[5 + 7(i-1)], as in the write mode (expected token, then the write). When every token matches,
-- the script makes those writes, as the write mode does, and returns {2, version}: no parsing, no arithmetic.
-- Otherwise (or with ARGV[4] ''), it decides from the stored state with the values of the last argument, one text
-- whose values are separated by spaces (none holds one). Per bucket: new token, stamp, horizon of a write now,
-- deadline of a write now, the instant before which a bucket written later than now is decided at its last write
-- (as BucketState does: a clock behind it counts as its instant; the parameters are the same until then), '1' when
-- the horizon of a write then is later by as much else '' (it is the same), 'a' (acquire: hard limits are checked)
-- or 'j' (adjust: never refused, a refund never lifts a balance above the capacity), '1' for a count-only debit else
-- '', the number of limits m, then per limit: name, capacity, amount (milli-tokens), 'h' for a hard limit else '',
-- refill amount and period (reduced by their gcd; 0 0 for a limit that does not drip), then what its time to live
-- counts: for a limit that does not drip, its next reset (0: none); for a dripping one '' when it fills to its
-- capacity at its refill, else the capacity it fills to, the refill amount and period it fills at, and a wait added
-- to that (four values). Per limit, then, seven values, or ten for a dripping limit with a schedule.
-- Returns {1, version, then each bucket's new state} when every bucket was written; {0, version, then per bucket
-- the six values above} when a hard limit refused it (nothing written; keys that go too soon extended);
-- {-1, version, the same} when the stored state is outside what this mode decides (another stamp, a deadline
-- passed, a last write at or past the instant above, a session or slot, a balance at or beyond 2^53 in magnitude, a
-- consumption at or beyond 9223 * 10^15): the caller then decides in write mode from the states it got; and
-- {-2, version, i, what} when bucket i cannot be read (nothing written). The caller checks that what it sends stays
-- below 2^52 (amounts, capacities, refills, the instant); the script checks every number it reads and makes, so that
-- doubles hold each exactly, and keeps consumption counters (up to 19 digits) as decimal text in two parts.
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

-- whether the token of every bucket is the one at ARGV[first + 7(i-1)] ('' = no bucket)
local function unchanged(first)
  for i = 1, n do
    if (redis.call('HGET', KEYS[i], 'v') or '') ~= ARGV[first + 7 * (i - 1)] then
      return false
    end
  end
  return true
end

-- writes (or, for a check, extends) every bucket as the seven values per bucket from ARGV[first] say
local function apply(first)
  for i = 1, n do
    local at = first + 7 * (i - 1)
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
end

if ARGV[3] == '' then
  if not unchanged(4) then
    return answer(0, stored())
  end
  apply(4)
  return {1, version}
end

-- decide mode; the caller's own decision first, when it sent one and every bucket is as it knew it
local cursor = 5
if ARGV[4] == '1' then
  if unchanged(5) then
    apply(5)
    return {2, version}
  end
  cursor = 5 + 7 * n
end

local SAFE = 9007199254740992
local E15 = 1000000000000000
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

-- floor(a / m) and a mod m, exactly, for integers |a| < 2^53 and 0 < m < 2^53
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

-- the balance of a dripping limit that held b at last, refilled to at (BucketMath.refill), or nil when the credit
-- cannot be computed exactly and does not surely fill it
local function refill(b, cap, amount, period, last, at)
  if b >= cap or at <= last then
    return math.min(b, cap)
  end
  local product = (at - last) * amount
  if product >= SAFE / 2 then
    -- both quotients below are within a relative 2^-50 of the exact ones: the margin covers that
    if product / period >= (cap - b) * (1 + 2 ^ -20) + 2 then
      return cap
    end
    return nil
  end
  local credit = divmod(product + mulmod(last, amount, period), period)
  return math.min(cap, b + credit)
end

local fmt, find, sub = string.format, string.find, string.sub

-- the decimal text of an integer below 2^53 in magnitude: '%d' formats it as a C long, exactly and at little cost
-- where a long has 64 bits; a 32-bit build (whose long would turn an instant into garbage) gets '%.0f', exact too
-- (+ 0 turns a -0 into 0)
local text
if fmt('%d', SAFE - 1) == '9007199254740991' then
  text = function(x) return fmt('%d', x) end
else
  text = function(x) return fmt('%.0f', x + 0) end
end

-- the decimal text of the integer whose text is count (at most 19 digits) plus delta (|delta| < 2^52), exactly, in
-- two parts of 10^15; nil at or beyond 9223 * 10^15 in magnitude
local function plus(count, delta)
  if #count <= 15 then
    local sum = tonumber(count) + delta
    if sum < E15 and sum > -E15 then
      return text(sum)
    end
  end
  local sign, digits = string.match(count, '^(-?)(%d+)$')
  local hi, lo = 0, tonumber(digits)
  if #digits > 15 then
    hi, lo = tonumber(string.sub(digits, 1, -16)), tonumber(string.sub(digits, -15))
  end
  if sign == '-' then
    hi, lo = -hi, -lo
  end
  local carry, rest = divmod(lo + delta, E15)
  hi, lo = hi + carry, rest
  if hi >= 9223 or hi < -9223 then
    return nil
  elseif hi == 0 then
    return text(lo)
  elseif hi > 0 or lo == 0 then
    return fmt('%.0f%015.0f', hi, lo)
  elseif hi == -1 then
    return text(lo - E15)
  end
  return fmt('-%.0f%015.0f', -hi - 1, E15 - lo)
end

-- the time to live of a bucket whose limits hold balances at at, with horizon ends
local function timeToLive(limits, balances, ends, at)
  local untilAt = ends
  for j, l in ipairs(limits) do
    if balances[j] < l.cap then
      local wait
      if l.period > 0 then
        wait = math.ceil((l.fill - balances[j]) * l.fillPeriod / l.fillAmount) + 1 + l.extra
      elseif l.reset > 0 then
        wait = l.reset - at
      else
        return 0
      end
      untilAt = math.max(untilAt, at + wait)
    end
  end
  local ttl = untilAt - math.min(now, untilAt) + HOUR
  if ttl > MAX_TTL then
    return 0
  end
  return ttl
end

-- the decide mode's values come as one text, separated by spaces (none holds one)
local D, packed, from = {}, ARGV[cursor], 1
while true do
  local e = find(packed, ' ', from, true)
  if e == nil then
    D[#D + 1] = sub(packed, from)
    break
  end
  D[#D + 1] = sub(packed, from, e - 1)
  from = e + 1
end
cursor = 1

local buckets = {}
for i = 1, n do
  local b = {token = D[cursor], stamp = D[cursor + 1], ends = tonumber(D[cursor + 2]),
             deadline = D[cursor + 3], ahead = tonumber(D[cursor + 4]), slides = D[cursor + 5] == '1',
             mode = D[cursor + 6], countOnly = D[cursor + 7] == '1', limits = {}}
  local m = tonumber(D[cursor + 8])
  cursor = cursor + 9
  for j = 1, m do
    local cap, refillAmount, period = tonumber(D[cursor + 1]), tonumber(D[cursor + 4]),
        tonumber(D[cursor + 5])
    local six, l = D[cursor + 6], nil
    if period == 0 then
      l = {name = D[cursor], cap = cap, amount = tonumber(D[cursor + 2]), hard = D[cursor + 3] == 'h',
           refillAmount = 0, period = 0, reset = tonumber(six)}
      cursor = cursor + 7
    elseif six == '' then
      l = {name = D[cursor], cap = cap, amount = tonumber(D[cursor + 2]), hard = D[cursor + 3] == 'h',
           refillAmount = refillAmount, period = period, fill = cap, fillAmount = refillAmount,
           fillPeriod = period, extra = 0}
      cursor = cursor + 7
    else
      l = {name = D[cursor], cap = cap, amount = tonumber(D[cursor + 2]), hard = D[cursor + 3] == 'h',
           refillAmount = refillAmount, period = period, fill = tonumber(six),
           fillAmount = tonumber(D[cursor + 7]), fillPeriod = tonumber(D[cursor + 8]),
           extra = tonumber(D[cursor + 9])}
      cursor = cursor + 10
    end
    b.limits[j] = l
  end
  buckets[i] = b
end

local function corrupt(i, what)
  return {-2, version, i, what}
end

-- each bucket refilled to the instant it is decided at: its balances and consumption per limit, whether it is
-- stored, whether full, its stored horizon and deadline
local balances, consumed, present, full, at, horizon, kept = {}, {}, {}, {}, {}, {}, {}
for i, b in ipairs(buckets) do
  local h = redis.call('HMGET', KEYS[i], 'v', 's', 'x', 'k', 'd')
  local bal, con = {}, {}
  present[i] = h[1] ~= false
  at[i] = now
  if present[i] then
    local s = h[2]
    horizon[i] = exact(h[3])
    if not s or horizon[i] == nil then
      return corrupt(i, 'no state or horizon')
    end
    local deadline = h[5] and h[5] ~= '' and exact(h[5])
    if deadline == nil then
      return corrupt(i, 'deadline ' .. h[5])
    end
    kept[i] = h[5]
    -- the state's non-empty lines: the instant, then per limit name, balance, consumption and the rest
    local lines, last, pos, size = {}, nil, 1, #s
    while pos <= size do
      local e = find(s, '\n', pos, true) or size + 1
      if e > pos then
        if last == nil then
          local line = sub(s, pos, e - 1)
          last = tonumber(line)
          if last == nil or last ~= math.floor(last) then
            return corrupt(i, 'instant ' .. line)
          end
        else
          local t1 = find(s, '\t', pos, true)
          local t2 = t1 and t1 < e and find(s, '\t', t1 + 1, true)
          local t3 = t2 and t2 < e and find(s, '\t', t2 + 1, true)
          local balance, count
          if t3 and t3 < e then
            balance, count = sub(s, t1 + 1, t2 - 1), sub(s, t2 + 1, t3 - 1)
          end
          if count == nil or #count > 20 or not find(count, '^%-?%d+$') or tonumber(balance) == nil then
            return corrupt(i, 'line ' .. sub(s, pos, e - 1))
          end
          lines[sub(s, pos, t1 - 1)] = {balance, count, sub(s, t3 + 1, e - 1)}
        end
      end
      pos = e + 1
    end
    if last == nil then
      return corrupt(i, 'empty state')
    end
    at[i] = math.max(now, last)
    if h[4] ~= b.stamp or not h[5] or deadline and deadline <= at[i] or last >= b.ahead or last >= SAFE then
      return answer(-1, stored())
    end
    for j, l in ipairs(b.limits) do
      local line = lines[l.name]
      if line == nil then
        bal[j], con[j] = l.cap, '0'
      else
        local balance = exact(line[1])
        if line[3] ~= NO_SESSION or balance == nil then
          return answer(-1, stored())
        end
        if l.period > 0 then
          balance = refill(balance, l.cap, l.refillAmount, l.period, last, at[i])
          if balance == nil then
            return answer(-1, stored())
          end
        else
          balance = math.min(balance, l.cap)
        end
        bal[j], con[j] = balance, line[2]
      end
    end
  else
    for j, l in ipairs(b.limits) do
      bal[j], con[j] = l.cap, '0'
    end
  end
  full[i] = true
  for j, l in ipairs(b.limits) do
    full[i] = full[i] and bal[j] >= l.cap
  end
  if present[i] and full[i] and horizon[i] <= now then
    for j = 1, #b.limits do
      con[j] = '0'
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
            extend(KEYS[k], timeToLive(buckets[k].limits, balances[k], horizon[k], at[k]))
          end
        end
        return answer(0, stored())
      end
    end
  end
end

for i, b in ipairs(buckets) do
  for j, l in ipairs(b.limits) do
    local balance, count = balances[i][j], plus(consumed[i][j], l.amount)
    if not b.countOnly then
      balance = balance - l.amount
    end
    if b.mode == 'j' then
      balance = math.min(balance, l.cap)
    end
    if balance >= SAFE or balance <= -SAFE or count == nil then
      return answer(-1, stored())
    end
    balances[i][j], consumed[i][j] = balance, count
  end
end

local out = {1, version}
for i, b in ipairs(buckets) do
  local parts = {text(at[i])}
  for j, l in ipairs(b.limits) do
    parts[j + 1] = l.name .. '\t' .. text(balances[i][j]) .. '\t' .. consumed[i][j] .. '\t' .. NO_SESSION
  end
  local written = table.concat(parts, '\n')
  out[i + 2] = written
  local ends = b.ends
  if b.slides then
    ends = ends + at[i] - now
  end
  if present[i] and kept[i] == b.deadline then
    redis.call('HSET', KEYS[i], 'v', b.token, 's', written, 'x', text(ends))
  else
    redis.call('HSET', KEYS[i], 'v', b.token, 's', written, 'x', text(ends), 'k', b.stamp, 'd', b.deadline)
  end
  local ttl = timeToLive(b.limits, balances[i], ends, at[i])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[i], ttl)
  else
    redis.call('PERSIST', KEYS[i])
  end
end
return out
