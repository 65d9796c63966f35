/**
 * For a script whose call takes things away (entries it removes, or pushes on so that others leave
 * them alone): the first run keeps what it took under a key of the call's own for a while, and the
 * same call sent again (a client resends a command whose answer a broken connection lost) gets
 * that back instead of what is left, which would be nothing.
 *
 * `taken_before(key)` answers what the call took before, or nil; `keep_taken(key, taken, ms)` keeps
 * a non-empty list of strings for `ms` milliseconds. The key must share the script's cluster slot.
 */
export const CALL_RECORD_LUA = `
local function taken_before(key)
  local kept = redis.call('GET', key)
  if kept then return cjson.decode(kept) end
  return nil
end
local function keep_taken(key, taken, ms)
  if #taken > 0 then redis.call('SET', key, cjson.encode(taken), 'PX', ms) end
end
`;
