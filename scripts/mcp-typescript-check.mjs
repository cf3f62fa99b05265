#!/usr/bin/env node
// Drives `examples/mcp_server` with the official TypeScript MCP SDK, the way
// scripts/mcp-python-check.py does with the Python one: every tool, over stdio and streamable
// HTTP (with sessions and stateless), at each protocol revision the SDK speaks:
//
//   - `@modelcontextprotocol/client` (v2, the stable line that replaces `@modelcontextprotocol/sdk`)
//     with `versionNegotiation: {mode: "auto"}`: `server/discover`, 2026-07-28, input requests
//     answered inside `callTool` (multi-round-trip, sealed `requestState`);
//   - the same package in its default legacy mode (`initialize`, 2025-11-25, `elicitation/create`),
//     and with `supportedProtocolVersions: ["2025-06-18"]`;
//   - `@modelcontextprotocol/sdk` (v1), which always offers its latest, 2025-11-25.
//
// The approval (`delete_note`: note 1 approved, note 2 declined) and the form (`pick_environment`)
// are answered by the client's `elicitation/create` handler, `count_to`'s progress is counted by
// `onprogress`, and `note_stats` must carry `structuredContent` and an `outputSchema`. A 2025-*
// client of a stateless server cannot be sent a request, so there the two asking tools must
// answer the `isError` prompt instead (README, "Asking the user over MCP").
//
//   cargo build --example mcp_server --features mcp-http
//   npm i --prefix /tmp/mcp-ts node@22 @modelcontextprotocol/client @modelcontextprotocol/sdk
//   MCP_TS_MODULES=/tmp/mcp-ts/node_modules /tmp/mcp-ts/node_modules/.bin/node \
//       scripts/mcp-typescript-check.mjs [path/to/mcp_server]
//
// MCP_TS_MODULES defaults to ./node_modules. Not run by CI: it needs Node 22, the SDK and free
// loopback ports. Prints one line per transport and client; exits 1 if any check fails.
//
// Last run 2026-12-02 with node 22.23.3, @modelcontextprotocol/client 2.4.0 and
// @modelcontextprotocol/sdk 1.32.2: all 12 runs (3 transports x 4 clients) ok, 0 failed checks.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, createConnection } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SERVER = process.argv[2] ?? join(ROOT, "target/debug/examples/mcp_server");
const MODULES = process.env.MCP_TS_MODULES ?? join(process.cwd(), "node_modules");

/** Imports `pkg/subpath` from MODULES: ESM resolves bare names from this file's folder, not the cwd. */
async function load(pkg, subpath = ".") {
  const dir = join(MODULES, pkg);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const exports = manifest.exports ?? {};
  let entry = exports[subpath];
  if (entry === undefined && exports["./*"] !== undefined) {
    entry = JSON.parse(JSON.stringify(exports["./*"]).replaceAll("*", subpath.slice(2)));
  }
  while (typeof entry === "object" && entry !== null) entry = entry.import ?? entry.default;
  if (typeof entry !== "string") throw new Error(`${pkg}: no ESM export ${subpath} in ${dir}`);
  return import(pathToFileURL(join(dir, entry)).href);
}

const v2 = {
  ...(await load("@modelcontextprotocol/client")),
  ...(await load("@modelcontextprotocol/client", "./stdio")),
};
const v1 = {
  ...(await load("@modelcontextprotocol/sdk", "./client/index.js")),
  ...(await load("@modelcontextprotocol/sdk", "./client/stdio.js")),
  ...(await load("@modelcontextprotocol/sdk", "./client/streamableHttp.js")),
  ...(await load("@modelcontextprotocol/sdk", "./types.js")),
};
const version = (pkg) => JSON.parse(readFileSync(join(MODULES, pkg, "package.json"), "utf8")).version;

const EXPECTED_TOOLS = ["add", "count_to", "delete_note", "get_weather", "note_stats", "pick_environment", "screenshot"];

// Each client the SDK can be: which package, how it negotiates, and the revision it must end on.
const CLIENTS = [
  { name: "v2 auto", sdk: v2, options: { versionNegotiation: { mode: "auto" } }, expect: "2026-07-28" },
  { name: "v2 legacy", sdk: v2, options: {}, expect: "2025-11-25" },
  { name: "v2 06-18", sdk: v2, options: { supportedProtocolVersions: ["2025-06-18"] }, expect: "2025-06-18" },
  { name: "v1", sdk: v1, options: {}, expect: "2025-11-25" },
];

/** Calls every tool through one client; returns [negotiated version, failures]. */
async function check(client, target, stateless) {
  const failures = [];
  const fail = (message) => failures.push(message);
  const asked = [];
  const wire = []; // every message the server sent, to tell which way the questions came
  const { sdk } = client;

  const elicit = async (request) => {
    const params = request.params ?? request;
    const properties = params.requestedSchema?.properties ?? {};
    asked.push({ mode: params.mode ?? "form", message: params.message, fields: Object.keys(properties) });
    if (params.message === "Delete note 2?") return { action: "decline" };
    return { action: "accept", content: "env" in properties ? { env: "staging" } : {} };
  };
  const mcp = new sdk.Client(
    { name: "toolnexus-typescript-check", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, ...client.options },
  );
  if (sdk === v2) mcp.setRequestHandler("elicitation/create", elicit);
  else mcp.setRequestHandler(v1.ElicitRequestSchema, elicit);

  const transport =
    target.command !== undefined
      ? new sdk.StdioClientTransport({ command: target.command, args: [], stderr: "ignore" })
      : new sdk.StreamableHTTPClientTransport(new URL(target.url));
  tapIncoming(transport, wire);

  await mcp.connect(transport);
  let negotiated = mcp.getNegotiatedProtocolVersion?.();
  if (negotiated === undefined) {
    // v1 keeps no such getter: read it off the `initialize` answer.
    negotiated = wire.find((m) => m.result?.protocolVersion)?.result.protocolVersion;
  }
  if (negotiated !== client.expect) fail(`negotiated ${negotiated}, expected ${client.expect}`);
  const modern = negotiated === "2026-07-28";
  const canAsk = modern || !stateless;

  try {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name).sort();
    if (!isDeepStrictEqual(names, EXPECTED_TOOLS)) fail(`tools/list: ${JSON.stringify(names)}`);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    if (byName.delete_note?.annotations?.destructiveHint !== true) {
      fail(`delete_note annotations: ${JSON.stringify(byName.delete_note?.annotations)}`);
    }
    if (byName.note_stats?.annotations?.readOnlyHint !== true) {
      fail(`note_stats annotations: ${JSON.stringify(byName.note_stats?.annotations)}`);
    }
    const outputKeys = Object.keys(byName.note_stats?.outputSchema?.properties ?? {}).sort();
    if (!isDeepStrictEqual(outputKeys, ["notes", "words"])) {
      fail(`note_stats outputSchema: ${JSON.stringify(byName.note_stats?.outputSchema)}`);
    }
    if (byName.add?.inputSchema?.properties?.a?.type !== "number") {
      fail(`add inputSchema: ${JSON.stringify(byName.add?.inputSchema)}`);
    }

    const progress = [];
    const calls = [
      ["add", { a: 2, b: 40 }, "42"],
      ["get_weather", { city: "Paris" }, "Paris: 18°C, dry"],
      ["screenshot", {}, "image (image/png, 82 bytes)"],
      ["get_weather", { city: "Atlantis" }, "no weather station in Atlantis; try a capital city"],
      ["delete_note", { id: 1 }, canAsk ? "deleted note 1" : "Delete note 1?"],
      ["delete_note", { id: 2 }, canAsk ? "declined/expired: Delete note 2?" : "Delete note 2?"],
      ["pick_environment", {}, canAsk ? "deploying to staging" : "Which environment?"],
      ["count_to", { n: 3 }, "counted to 3"],
      ["note_stats", {}, '{"notes":3,"words":120}'],
    ];
    for (const [name, args, expected] of calls) {
      const onprogress = name === "count_to" ? (p) => progress.push(p) : undefined;
      let result;
      try {
        const params = { name, arguments: args };
        // v2 takes the options second; v1 takes a result schema there.
        result = sdk === v2 ? await mcp.callTool(params, { onprogress }) : await mcp.callTool(params, undefined, { onprogress });
      } catch (error) {
        fail(`${name}: ${error?.name}: ${error?.message}`);
        continue;
      }
      const first = result.content?.[0];
      const isError = result.isError === true;
      const shouldError = expected.startsWith("no weather") || expected.startsWith("declined")
        || (!canAsk && (name === "delete_note" || name === "pick_environment"));
      if (isError !== shouldError || first?.text !== expected) {
        fail(`${name}: isError=${result.isError} content=${JSON.stringify(result.content)}`);
      }
      // The text says what the image is (SPEC's describe_part); the image itself follows.
      const image = result.content?.[1];
      const png = Buffer.from(image?.data ?? "", "base64");
      if (name === "screenshot" && (image?.type !== "image" || image?.mimeType !== "image/png" || png.length !== 82
          || png.toString("latin1", 1, 4) !== "PNG")) {
        fail(`screenshot: ${JSON.stringify(image).slice(0, 120)}`);
      }
      if (name === "note_stats" && !isDeepStrictEqual(result.structuredContent, { notes: 3, words: 120 })) {
        fail(`note_stats: structuredContent=${JSON.stringify(result.structuredContent)}`);
      }
    }

    const values = progress.map((p) => p.progress);
    const increasing = values.every((v, i) => i === 0 || v > values[i - 1]);
    if (values[0] !== 0 || values.at(-1) !== 3 || !increasing || progress.some((p) => p.total !== 3)) {
      fail(`progress: ${JSON.stringify(progress)}`);
    }
    const expectedAsks = canAsk
      ? [
          { mode: "form", message: "Delete note 1?", fields: [] },
          { mode: "form", message: "Delete note 2?", fields: [] },
          { mode: "form", message: "Which environment?", fields: ["env"] },
        ]
      : [];
    if (!isDeepStrictEqual(asked, expectedAsks)) fail(`asked: ${JSON.stringify(asked)}`);
    // The questions must come the way the revision says: input requests inside a result on
    // 2026-07-28, `elicitation/create` requests from the server on 2025-*.
    const requests = wire.filter((m) => m.method === "elicitation/create").length;
    const inputRequired = wire.filter((m) => m.result?.resultType === "input_required").length;
    const expectedWay = canAsk ? (modern ? [0, 3] : [3, 0]) : [0, 0];
    if (!isDeepStrictEqual([requests, inputRequired], expectedWay)) {
      fail(`elicitation/create requests ${requests}, input_required results ${inputRequired}; expected ${expectedWay}`);
    }
  } finally {
    await mcp.close();
  }
  return [negotiated, failures];
}

/** Records every message the transport hands the client (the SDK assigns `onmessage` at connect). */
function tapIncoming(transport, wire) {
  let handler;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => handler,
    set: (next) => {
      handler =
        next &&
        ((message, extra) => {
          wire.push(message);
          return next(message, extra);
        });
    },
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startHttp(stateless) {
  const port = await freePort();
  const args = ["--http", `127.0.0.1:${port}`, ...(stateless ? ["--stateless"] : [])];
  const child = spawn(SERVER, args, { stdio: ["ignore", "ignore", "ignore"] });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return { child, url: `http://127.0.0.1:${port}/mcp` };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error(`the server did not listen on 127.0.0.1:${port}`);
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const TRANSPORTS = [
  ["stdio", async () => ({ child: null, target: { command: SERVER } })],
  ["http sessions", async () => {
    const { child, url } = await startHttp(false);
    return { child, target: { url } };
  }],
  ["http stateless", async () => {
    const { child, url } = await startHttp(true);
    return { child, target: { url } };
  }],
];

console.log(
  `node ${process.versions.node}, @modelcontextprotocol/client ${version("@modelcontextprotocol/client")}, ` +
    `@modelcontextprotocol/sdk ${version("@modelcontextprotocol/sdk")}, server ${SERVER}`,
);
let total = 0;
let rows = 0;
for (const [transport, start] of TRANSPORTS) {
  for (const client of CLIENTS) {
    const { child, target } = await start();
    let negotiated = "?";
    let failures;
    try {
      [negotiated, failures] = await withTimeout(check(client, target, transport === "http stateless"), 60_000, "check");
    } catch (error) {
      failures = [`${error?.name}: ${error?.message}`];
    } finally {
      child?.kill("SIGTERM");
    }
    rows += 1;
    console.log(`${transport.padEnd(15)} ${client.name.padEnd(10)} ${String(negotiated).padEnd(11)} ${failures.length ? "FAILED" : "ok"}`);
    for (const failure of failures) console.log(`    ${failure}`);
    total += failures.length;
  }
}
console.log(`${total ? "FAILED" : "ok"}: ${rows} runs, ${total} failed checks`);
process.exit(total ? 1 : 0);
