/** Between the fields of the batch's one argument (batchScript); no field may hold it. */
export const FIELD_SEPARATOR = '\n';

/**
 * The Lua script that runs a turn's script calls in one EVALSHA (server/redis/turn-transaction.ts,
 * docs/performance.md "Redis and Postgres per request"). Each defined script becomes a function
 * of its own KEYS and ARGV, its text unchanged; the batch runs the calls in order, each under
 * `pcall`, so a call that fails answers its own error element and the others run on. A call
 * changes what it would change sent alone: the batch runs atomically, the calls one after the
 * other, as consecutive scripts would.
 *
 * KEYS: every call's keys in order. ARGV[1]: per call its script's name, key count, argument
 * count, then its arguments, all the turn's fields in one text separated by FIELD_SEPARATOR
 * (docs/performance.md, "Speed tricks in the code": one argument for ioredis to encode instead
 * of several per call); a call's script sees its fields as the ARGV it would have had alone,
 * strings, as Redis gives every argument. Reply: one element per call, its script's reply or
 * its error.
 */
export function batchScript(scripts: ReadonlyMap<string, string>): string {
  const functions = [...scripts].map(([name, lua]) => `scripts[${luaString(name)}] = function(KEYS, ARGV)\n${lua}\nend`);
  return `local scripts = {}
${functions.join('\n')}
local fields = {}
local packed, from = ARGV[1], 1
while true do
  local to = string.find(packed, '\\n', from, true)
  if not to then
    fields[#fields + 1] = string.sub(packed, from)
    break
  end
  fields[#fields + 1] = string.sub(packed, from, to - 1)
  from = to + 1
end
local replies = {}
local key, at, count = 1, 1, 0
while at <= #fields do
  local name, key_count, arg_count = fields[at], tonumber(fields[at + 1]), tonumber(fields[at + 2])
  local keys, args = {}, {}
  for i = 1, key_count do keys[i] = KEYS[key + i - 1] end
  for i = 1, arg_count do args[i] = fields[at + 2 + i] end
  key = key + key_count
  at = at + 3 + arg_count
  count = count + 1
  local script = scripts[name]
  local ok, reply
  if script then
    ok, reply = pcall(script, keys, args)
  else
    ok, reply = false, 'no script ' .. tostring(name)
  end
  if not ok then
    if type(reply) == 'table' and reply.err then replies[count] = reply else replies[count] = { err = tostring(reply) } end
  elseif reply == nil then
    replies[count] = false
  else
    replies[count] = reply
  end
end
return replies
`;
}

const luaString = (text: string): string => `'${text.replace(/[\\']/g, (character) => `\\${character}`)}'`;
