-- HTTP/1.1 pipelining for wrk: each write carries `depth` copies of the request (TFB's plaintext test uses 16).
--   wrk ... -s scenarios/pipeline.lua -- 16
-- wrk still parses and counts every response on its own, so requests/s counts responses, not batches.

local batch

function init(args)
  local depth = tonumber(args[1] or "1")
  if depth == nil or depth < 1 then
    error("pipeline.lua: the depth must be a positive integer, got " .. tostring(args[1]))
  end
  -- wrk.format() renders the request from the command line (method, path, -H headers) once per thread.
  batch = string.rep(wrk.format(), depth)
end

function request()
  return batch
end
