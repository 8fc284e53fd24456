-- HttpArena's HTTP/1.1 request mixes for wrk: the runner's HttpArena tests (ARENA_TESTS in scenarios/loadrun/model.py)
-- send their requests through this script.
--   wrk ... URL -s scenarios/arena.lua -- [every=N] REQUEST... [CHECK...]
--
-- REQUEST is get=PATH, post=PATH or chunked=PATH (a POST whose body goes as one chunk, then the last, empty one); a
-- post or chunked request takes its body from the next word: body=TEXT, or bytes=N for N bytes of filler. Each wrk
-- thread sends the requests in turn, in the order given, with wrk's Host (the URL's) and the headers given with -H.
-- wrk copies every request into its connection's buffer before sending it, so large bodies cost wrk time per request.
--
-- every=N: every Nth request of a thread says `Connection: close`, so the server closes that connection once it has
-- answered and wrk opens a new one. HttpArena's load generator opens a new connection after N requests on one
-- (gcannon -r N); wrk cannot close a connection itself, so the server is asked to, as often.
--
-- CHECKs apply to every response below 400 (wrk counts those of 400 and above itself). Any check makes wrk keep every
-- response's headers and body for it, which costs wrk time, so the runner gives only cheap ones:
--   expect=A,B,...    the status is 2xx and the body is one of these
--   match=PATTERN     the status is 2xx and the body holds this Lua pattern
--   encoding=A,B,...  the status is 2xx and Content-Encoding is one of these
-- Failing responses are counted; at the end the script adds a line to wrk's report,
-- `Unexpected responses: N, the first: <status> <body, shortened>`, which the runner counts as a failure.

local specs = {} -- the requests, in turn
local keeping = {} -- each rendered on first use
local closing = {} -- the same, with Connection: close
local every = 0
local turn = 0
local sent = 0
local expected, pattern, encodings
local filler = string.rep("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/", 1024) -- 64 KiB

local function set_of(text)
  local set = {}
  for value in string.gmatch(text, "[^,]+") do
    set[value] = true
  end
  return set
end

-- One request as one string, built in a single concatenation: a large body is never a string of its own first.
local function render(spec, close)
  local host = wrk.headers["Host"] or (wrk.port and (wrk.host .. ":" .. wrk.port) or wrk.host)
  local head = { spec.method .. " " .. spec.path .. " HTTP/1.1", "Host: " .. host }
  for name, value in pairs(wrk.headers) do
    if name ~= "Host" then
      head[#head + 1] = name .. ": " .. value
    end
  end
  if close then
    head[#head + 1] = "Connection: close"
  end
  local length = spec.text and #spec.text or spec.size
  if spec.chunked then
    head[#head + 1] = "Transfer-Encoding: chunked"
  elseif length then
    head[#head + 1] = "Content-Length: " .. length
  end
  local parts = { table.concat(head, "\r\n") .. "\r\n\r\n" }
  if spec.chunked then
    parts[#parts + 1] = string.format("%x\r\n", length)
  end
  if spec.text then
    parts[#parts + 1] = spec.text
  elseif spec.size then
    for _ = 1, math.floor(spec.size / #filler) do
      parts[#parts + 1] = filler
    end
    parts[#parts + 1] = string.sub(filler, 1, spec.size % #filler)
  end
  if spec.chunked then
    parts[#parts + 1] = "\r\n0\r\n\r\n"
  end
  return table.concat(parts)
end

local function parse(args)
  for i = 1, #args do
    local key, value = string.match(args[i], "^([%a]+)=(.*)$")
    local last = specs[#specs]
    if key == "get" or key == "post" or key == "chunked" then
      specs[#specs + 1] = { method = key == "get" and "GET" or "POST", path = value, chunked = key == "chunked" }
    elseif key == "body" or key == "bytes" then
      if not last or last.method ~= "POST" or last.text or last.size then
        error("arena.lua: " .. args[i] .. " must follow a post= or chunked= request that has no body yet")
      end
      if key == "body" then
        last.text = value
      else
        last.size = tonumber(value)
        if not (last.size and last.size >= 0 and last.size % 1 == 0) then
          error("arena.lua: bytes= needs a count of bytes, got '" .. value .. "'")
        end
      end
    elseif key == "every" then
      every = tonumber(value)
      if not every or every < 1 then
        error("arena.lua: every= needs a positive count of requests, got '" .. value .. "'")
      end
    elseif key == "expect" then
      expected = set_of(value)
    elseif key == "match" then
      pattern = value
    elseif key == "encoding" then
      encodings = set_of(value)
    else
      error("arena.lua: unknown argument '" .. args[i] .. "' (the script's first lines list them)")
    end
  end
end

function init(args)
  parse(args)
  if #specs == 0 then
    error("arena.lua: no request given (get=PATH, post=PATH body=TEXT, chunked=PATH bytes=N)")
  end
  for _, spec in ipairs(specs) do
    if spec.method == "POST" and not (spec.text or spec.size) then
      error("arena.lua: the POST to " .. spec.path .. " has no body= or bytes=")
    end
  end
  unexpected = 0
  if not (expected or pattern or encodings) then
    response = nil -- wrk then skips keeping headers and bodies
  end
end

-- Rendered on first use rather than in init(): wrk runs init() for one thread after the other and starts each thread
-- as soon as its own returns, counting its responses from then on, so building some 65 MiB of uploads there would let
-- the first threads load the server for seconds before the run's clock starts. Built here, a thread's first upload of
-- each size costs that thread the building, inside the run, as any of wrk's own work does.
function request()
  turn = turn % #specs + 1
  sent = sent + 1
  local close = every > 0 and sent % every == 0
  local rendered = close and closing or keeping
  if not rendered[turn] then
    rendered[turn] = render(specs[turn], close)
  end
  return rendered[turn]
end

local function passes(status, headers, body)
  if status < 200 or status > 299 then
    return false
  end
  if expected and not expected[body] then
    return false
  end
  if pattern and not string.find(body, pattern) then
    return false
  end
  if encodings then
    local coding
    for name, value in pairs(headers) do
      if string.lower(name) == "content-encoding" then
        coding = value
      end
    end
    return coding ~= nil and encodings[coding] == true
  end
  return true
end

function response(status, headers, body)
  if status >= 400 or passes(status, headers, body) then
    return
  end
  unexpected = unexpected + 1
  if not first_unexpected then
    first_unexpected = status .. " " .. string.gsub(string.sub(body or "", 1, 60), "%c", ".")
  end
end

-- setup() and done() run in wrk's main scripting environment, apart from the threads' own.
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function done()
  local count, first = 0, nil
  for _, thread in ipairs(threads) do
    count = count + (thread:get("unexpected") or 0)
    first = first or thread:get("first_unexpected")
  end
  if count > 0 then
    io.write(string.format("Unexpected responses: %d, the first: %s\n", count, first))
  end
end
