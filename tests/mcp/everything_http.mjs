// Runs @modelcontextprotocol/server-everything's Streamable HTTP transport on
// 127.0.0.1 and writes the port it listens on to a file, since the server
// itself only takes a port from $PORT and never says which one port 0 gave.
//
// Usage: node everything_http.mjs PORT_FILE [PORT]   (PORT default 0: any free one)
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [portFile, port = "0"] = process.argv.slice(2);
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  this.once("listening", () => {
    fs.writeFileSync(`${portFile}.tmp`, String(this.address().port));
    fs.renameSync(`${portFile}.tmp`, portFile);
  });
  return listen.apply(this, args);
};
process.env.PORT = port;
const here = path.dirname(fileURLToPath(import.meta.url));
await import(path.join(here, "servers/node_modules/@modelcontextprotocol/server-everything",
                       "dist/transports/streamableHttp.js"));
