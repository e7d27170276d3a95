// A small notes server for TestReadmeInitExample: it serves the notes in
// the directory given as its one argument, and exits with status 2 when
// that directory does not exist, as most servers that take a directory do.
const fs = require("fs");
const readline = require("readline");
const dir = process.argv[2];
const st = dir ? fs.statSync(dir, { throwIfNoEntry: false }) : undefined;
if (!st || !st.isDirectory()) {
  console.error("readme-notes: the notes directory " + dir + " does not exist");
  process.exit(2);
}
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    return;
  }
  if (m === null || typeof m !== "object" || m.id === undefined || typeof m.method !== "string") return;
  const ok = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  switch (m.method) {
    case "initialize":
      return ok({
        protocolVersion: (m.params && m.params.protocolVersion) || "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "readme-notes", version: "1.0.0" },
      });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({
        tools: [{ name: "list_notes", description: "List the notes.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } }],
      });
    case "tools/call":
      return ok({ content: [{ type: "text", text: fs.readdirSync(dir).join("\n") }] });
    default:
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found: " + m.method } });
  }
});
process.stdin.on("end", () => process.exit(0));
