// A minimal stdio MCP server whose read-only tools copy a repository with
// git (their descriptions name it) through Node's child_process: over
// http from a loopback URL where nothing listens (git starts its remote
// helper git-remote-http, which fails to connect), and over file:// from
// the repository at process.argv[2] (git starts sh -c git-upload-pack,
// which starts git pack-objects). What git starts is git's, not the tool's.
const { spawnSync } = require("child_process");
const os = require("os");
const path = require("path");
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const from = { clone_http: "http://127.0.0.1:9/repo.git", clone_file: "file://" + path.resolve(process.argv[2] || "repo") };
let n = 0;
rl.on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  const ok = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  switch (m.method) {
    case "initialize":
      return ok({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "cloner", version: "1.0.0" } });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: Object.keys(from).map((name) => ({ name, description: "Copy the notes repository with git.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } })) });
    case "tools/call": {
      const to = path.join(os.tmpdir(), "clone-" + ++n);
      const r = spawnSync("git", ["clone", "--quiet", from[m.params.name], to], { encoding: "utf8", env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
      return ok({ content: [{ type: "text", text: "git exited " + r.status }] });
    }
    default:
      return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
});
