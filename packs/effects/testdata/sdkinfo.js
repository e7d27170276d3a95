// A minimal stdio MCP server whose one read-only tool asks xcrun for the
// SDK path, as a macOS-aware tool does, through Node's child_process
// (libuv: one execve per PATH directory). Where xcrun is installed nowhere
// nothing runs: the spawns probe must say it tried, not that it ran.
const { spawnSync } = require("child_process");
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  const ok = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  switch (m.method) {
    case "initialize":
      return ok({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "sdkinfo", version: "1.0.0" } });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: [{ name: "sdk_info", description: "Tell which SDK the build uses.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } }] });
    case "tools/call": {
      const r = spawnSync("xcrun", ["--show-sdk-path"], { encoding: "utf8" });
      return ok({ content: [{ type: "text", text: r.error ? "no SDK: " + r.error.code : r.stdout }] });
    }
    default:
      return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
});
