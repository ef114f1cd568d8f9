-- wrk script of `npm run bench` (bench/load.ts): POSTs the JSON body in WRK_BODY_FILE with
-- WRK_AUTHORIZATION, counts the requests written (so the usage check knows what was sent,
-- including those in flight when wrk stopped) and prints one machine-readable summary line.
local file = assert(io.open(os.getenv("WRK_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
local authorization = os.getenv("WRK_AUTHORIZATION")
if authorization and authorization ~= "" then wrk.headers["Authorization"] = authorization end

local threads = {}
function setup(thread) table.insert(threads, thread) end

function init(args)
  sent = 0
  formatted = wrk.format()
end

function request()
  sent = sent + 1
  return formatted
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("sent") end
  local errors = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"sent":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"latencyUs":{"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"max":%d}}\n',
    summary.requests, total, summary.duration, summary.bytes,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
