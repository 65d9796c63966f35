/**
 * The conversation index's part of the session store's scripts (see
 * `conversation-index-layout.ts` for the keys): Lua functions defined at the top of the begin and
 * finish scripts and called from them, so the index costs no script run of its own.
 *
 * A summary (one JSON value per session id) holds `first` (ms), `ch`, `addr`, `sender`, `person`,
 * `actor`, `state` (`in-progress`, `suspended`, `settled` or `failed`), `stateAt` (ms the state was
 * written), `turns`, `tokens`, `micros` (cost in micro-dollars), `last` (text), `lastTurn` and
 * `failedTurn` (a turn with a delivery that failed for good). A turn that started after `stateAt`
 * (the index's score is later) is in progress.
 */

/**
 * `conversation_started(idx, sum, sid, now, max, cutoff, first)`: a new turn of `sid` starts at
 * `now`. One `ZADD` for a known conversation; for a new one, also drops conversations idle since
 * before `cutoff` and the oldest over `max` (at most 100 and 1000 per call), and creates its
 * summary from the turn's first injection (`first`, its JSON).
 */
export const CONVERSATION_STARTED_LUA = `
local function conversation_started(idx, sum, sid, now, max, cutoff, first)
  if redis.call('ZADD', idx, now, sid) == 0 then return end
  local old = redis.call('ZRANGEBYSCORE', idx, '-inf', '(' .. cutoff, 'LIMIT', 0, 100)
  if #old > 0 then
    redis.call('ZREM', idx, unpack(old))
    redis.call('HDEL', sum, unpack(old))
  end
  local over = redis.call('ZCARD', idx) - tonumber(max)
  if over > 0 then
    local drop = redis.call('ZRANGE', idx, 0, math.min(over, 1000) - 1)
    redis.call('ZREM', idx, unpack(drop))
    redis.call('HDEL', sum, unpack(drop))
  end
  local s = { first = tonumber(now), state = 'in-progress', stateAt = 0, turns = 0, tokens = 0, micros = 0 }
  local ok, injection = pcall(cjson.decode, first)
  local function text(value) if type(value) == 'string' then return value end return nil end
  if ok and type(injection) == 'table' then
    s.ch = text(injection.channel)
    s.actor = text(injection.actor)
    if type(injection.replyTo) == 'table' then s.addr = text(injection.replyTo.address) end
    if type(injection.sender) == 'table' then
      s.sender = text(injection.sender.id)
      s.person = text(injection.sender.personId)
    end
  end
  redis.call('HSETNX', sum, sid, cjson.encode(s))
end
`;

/**
 * `conversation_settled(idx, sum, settlement)`: a turn settled (`settlement`, the JSON of
 * `settlementArgument`). Reads and writes the summary (one `HGET`, one `HSET`); a conversation
 * the index lost (dropped meanwhile) is indexed again.
 */
export const CONVERSATION_SETTLED_LUA = `
local function conversation_settled(idx, sum, settlement)
  local c = cjson.decode(settlement)
  local raw = redis.call('HGET', sum, c.sid)
  local s
  if raw then
    s = cjson.decode(raw)
  else
    s = { first = c.at }
    redis.call('ZADD', idx, c.at, c.sid)
  end
  s.turns = (tonumber(s.turns) or 0) + 1
  s.tokens = (tonumber(s.tokens) or 0) + (tonumber(c.tokens) or 0)
  s.micros = (tonumber(s.micros) or 0) + (tonumber(c.micros) or 0)
  s.state = c.state
  s.stateAt = c.at
  s.lastTurn = c.turn
  s.actor = c.actor
  s.ch = c.ch
  s.addr = c.addr
  s.sender = c.sender
  s.person = c.person
  s.last = c.last
  redis.call('HSET', sum, c.sid, cjson.encode(s))
end
`;
