#!/usr/bin/env node
// Drives `examples/mcp_server` with the official TypeScript MCP SDK, the way
// scripts/mcp-python-check.py does with the Python one: every tool, over stdio and streamable
// HTTP (with sessions and stateless), at each protocol revision the SDK speaks:
//
//   - `@modelcontextprotocol/client` (v2, the stable line that replaces `@modelcontextprotocol/sdk`)
//     with `versionNegotiation: {mode: "auto"}`: `server/discover`, 2026-07-28, input requests
//     answered inside `callTool` (multi-round-trip, sealed `requestState`);
//   - the same package in its default legacy mode (`initialize`, 2025-11-25, `elicitation/create`),
//     and with `supportedProtocolVersions` of one older revision: 2025-06-18, 2025-03-26 and
//     2024-11-05 (those two have no elicitation: the asking tools answer the isError prompt);
//   - `@modelcontextprotocol/sdk` (v1), which always offers its latest, 2025-11-25, and also calls
//     the two task tools as 2025-11-25 core tasks (`experimental.tasks.callToolStream`: the
//     task, `tasks/get`, `tasks/result` with the approval asked there); the row says how many.
//     That approval's `elicitation/create` must name its task in `_meta` (related-task), and
//     over HTTP sessions a second session's `tasks/get` of the task must get exactly the
//     unknown-id -32602 while the owner still reads it.
//
// The approval (`delete_note`: note 1 approved, note 2 declined) and the form (`pick_environment`)
// are answered by the client's `elicitation/create` handler, `count_to`'s progress is counted by
// `onprogress` (and a longer count is cancelled with an AbortSignal), and `note_stats` must carry
// `structuredContent` and an `outputSchema`. A 2025-* client of a stateless server cannot be
// sent a request, so there the two asking tools must answer the `isError` prompt instead
// (README, "Asking the user over MCP").
//
// If `@modelcontextprotocol/inspector` is installed beside them, its `--cli` is run too, at each
// `--protocol-era` (legacy, auto, modern), on each transport: tools/list, and tools/call of `add`,
// `count_to`, `note_stats` and `delete_note` (the CLI declares no elicitation, so that one must be
// the isError prompt, exit code 5). The era it negotiated is read off the wire: on stdio through
// `tee`, on HTTP through a recording proxy on a loopback port.
//
//   cargo build --example mcp_server --features mcp-http
//   npm i --prefix /tmp/mcp-ts node@22 @modelcontextprotocol/client @modelcontextprotocol/sdk \
//       @modelcontextprotocol/inspector@2.12.0
//   MCP_TS_MODULES=/tmp/mcp-ts/node_modules /tmp/mcp-ts/node_modules/.bin/node \
//       scripts/mcp-typescript-check.mjs [path/to/mcp_server]
//
// The Inspector is pinned: npm's `latest` tag resolved to 0.15.0 on 2026-12-05, and all 9 CLI
// runs failed against that one (no era on the wire). MCP_TS_MODULES defaults to ./node_modules.
// Not run by CI: it needs Node 22, the SDK, `sh` and
// `tee`, and free loopback ports. Prints one line per transport and client with the protocol
// version negotiated; exits 1 if any check fails (~50 s, most of it the Inspector's start-up).
//
// Last run 2026-12-05 with node 22.23.3, @modelcontextprotocol/client 2.4.0,
// @modelcontextprotocol/sdk 1.32.2 and @modelcontextprotocol/inspector 2.12.0: all 27 runs
// (3 transports x 6 SDK clients + 3 transports x 3 Inspector eras) ok, 0 failed checks.

import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { createServer, createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SERVER = process.argv[2] ?? join(ROOT, "target/debug/examples/mcp_server");
const MODULES = process.env.MCP_TS_MODULES ?? join(process.cwd(), "node_modules");

if (!existsSync(SERVER)) {
  console.error(`FAILED: no server at ${SERVER}: cargo build --example mcp_server --features mcp-http`);
  process.exit(1);
}
for (const pkg of ["@modelcontextprotocol/client", "@modelcontextprotocol/sdk"]) {
  if (!existsSync(join(MODULES, pkg, "package.json"))) {
    console.error(`FAILED: ${pkg} is not in ${MODULES} (MCP_TS_MODULES); see this script's header`);
    process.exit(1);
  }
}

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

/** SPEC §8C's text for a suspension sent to a client that cannot ask: `needs approval, …`,
 * and for other kinds `needs <kind> input, …`. */
const cannotAsk = (needed, prompt) => `needs ${needed}, which this client cannot ask for: ${prompt}`;

const EXPECTED_TOOLS = [
  "add",
  "count_to",
  "delete_note",
  "get_weather",
  "long_count",
  "note_stats",
  "pick_environment",
  "publish_report",
  "screenshot",
  "whoami",
];

// Each client the SDK can be: which package, how it negotiates, and the revision it must end on.
const CLIENTS = [
  { name: "v2 auto", sdk: v2, options: { versionNegotiation: { mode: "auto" } }, expect: "2026-07-28" },
  { name: "v2 legacy", sdk: v2, options: {}, expect: "2025-11-25" },
  { name: "v2 06-18", sdk: v2, options: { supportedProtocolVersions: ["2025-06-18"] }, expect: "2025-06-18" },
  { name: "v2 03-26", sdk: v2, options: { supportedProtocolVersions: ["2025-03-26"] }, expect: "2025-03-26" },
  { name: "v2 11-05", sdk: v2, options: { supportedProtocolVersions: ["2024-11-05"] }, expect: "2024-11-05" },
  { name: "v1", sdk: v1, options: {}, expect: "2025-11-25" },
];

/** Calls every tool through one client; returns [negotiated version, failures]. */
async function check(client, target, stateless) {
  const failures = [];
  const fail = (message) => failures.push(message);
  let note = "";
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
  // Elicitation came with 2025-06-18: before it, and where the server cannot send a request
  // (2025-* over stateless HTTP), the asking tools answer the isError prompt.
  const canAsk = negotiated >= "2025-06-18" && (modern || !stateless);

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
      // SPEC §8C: a client that cannot ask is told so, with the prompt.
      ["delete_note", { id: 1 }, canAsk ? "deleted note 1" : cannotAsk("approval", "Delete note 1?")],
      [
        "delete_note",
        { id: 2 },
        canAsk ? "declined/expired: Delete note 2?" : cannotAsk("approval", "Delete note 2?"),
      ],
      [
        "pick_environment",
        {},
        canAsk ? "deploying to staging" : cannotAsk("input input", "Which environment?"),
      ],
      ["count_to", { n: 3 }, "counted to 3"],
      ["note_stats", {}, '{"notes":3,"words":120}'],
      // SPEC §12: the tool reads who is calling (clientInfo) and the request's revision; a
      // sessionless 2025-* request does not say who sent it.
      [
        "whoami",
        {},
        stateless && !modern
          ? `? ? at ${negotiated}`
          : `toolnexus-typescript-check 1.0.0 at ${negotiated}`,
      ],
    ];
    for (const [name, args, expected] of calls) {
      const onprogress = name === "count_to" ? (p) => progress.push(p) : undefined;
      let result;
      try {
        const params = { name, arguments: args };
        // v2 takes the options second; v1 takes a result schema there.
        result =
          sdk === v2
            ? await mcp.callTool(params, { onprogress })
            : await mcp.callTool(params, undefined, { onprogress });
      } catch (error) {
        fail(`${name}: ${error?.name}: ${error?.message}`);
        continue;
      }
      const first = result.content?.[0];
      const isError = result.isError === true;
      const shouldError =
        expected.startsWith("no weather") ||
        expected.startsWith("declined") ||
        (!canAsk && (name === "delete_note" || name === "pick_environment"));
      if (isError !== shouldError || first?.text !== expected) {
        fail(`${name}: isError=${result.isError} content=${JSON.stringify(result.content)}`);
      }
      // The text says what the image is (SPEC's describe_part); the image itself follows.
      const image = result.content?.[1];
      const png = Buffer.from(image?.data ?? "", "base64");
      if (
        name === "screenshot" &&
        (image?.type !== "image" ||
          image?.mimeType !== "image/png" ||
          png.length !== 82 ||
          png.toString("latin1", 1, 4) !== "PNG")
      ) {
        fail(`screenshot: ${JSON.stringify(image).slice(0, 120)}`);
      }
      if (name === "note_stats" && !isDeepStrictEqual(result.structuredContent, { notes: 3, words: 120 })) {
        fail(`note_stats: structuredContent=${JSON.stringify(result.structuredContent)}`);
      }
    }

    // Cancelling: the aborted call rejects at once, the server stops counting (at most 2 steps
    // already under way arrive in the next 600 ms; an uncancelled count sends 6),
    // and it answers the next call. On 2026-07-28 the client cancels by closing the request; on
    // 2025-* it sends `notifications/cancelled` and keeps the stream open, which a stateless
    // server does not act on (`HttpOptions::stateless`: cancel by closing the request), so
    // there the count runs to its end and is not checked.
    const abort = new AbortController();
    const started = Date.now();
    setTimeout(() => abort.abort(new Error("cancelled by the check")), 300);
    const long = { name: "count_to", arguments: { n: 50 } };
    const options = { signal: abort.signal, onprogress: () => {} };
    try {
      await (sdk === v2 ? mcp.callTool(long, options) : mcp.callTool(long, undefined, options));
      fail("count_to 50: not cancelled");
    } catch (error) {
      if (Date.now() - started > 5_000) fail(`count_to 50: rejected after ${Date.now() - started} ms`);
    }
    const before = wire.filter((m) => m.method === "notifications/progress").length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    const trailing = wire.filter((m) => m.method === "notifications/progress").length - before;
    const cancelReaches = modern || !stateless;
    if (cancelReaches && trailing > 2)
      fail(`count_to 50: ${trailing} progress notifications after the cancel`);
    const after = await mcp.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    if (after.content?.[0]?.text !== "2") fail(`add after a cancel: ${JSON.stringify(after)}`);

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
      fail(
        `elicitation/create requests ${requests}, input_required results ${inputRequired}; expected ${expectedWay}`,
      );
    }

    // 2025-11-25's core tasks (SPEC §14), where the client can ask for them (v1's
    // `experimental.tasks`): the task-capable tools are listed with `execution.taskSupport`,
    // `callToolStream` asks for a task, follows it with `tasks/get` and reads it with
    // `tasks/result`, where `publish_report`'s approval is put to the client.
    const tasks = mcp.experimental?.tasks;
    if (negotiated === "2025-11-25" && tasks?.callToolStream) {
      const support = [byName.long_count?.execution?.taskSupport, byName.publish_report?.execution?.taskSupport];
      if (!isDeepStrictEqual(support, ["optional", "required"])) fail(`execution.taskSupport: ${support}`);
      const asTasks = [
        ["long_count", { n: 3, delay_ms: 10 }, "counted to 3"],
        ["publish_report", { name: "q3" }, canAsk ? "published q3" : cannotAsk("approval", "Publish report q3?")],
      ];
      for (const [name, args, expected] of asTasks) {
        const kinds = [];
        let result;
        for await (const message of tasks.callToolStream({ name, arguments: args })) {
          kinds.push(message.type);
          if (message.type === "result") result = message.result;
          if (message.type === "error") kinds.push(message.error?.message);
        }
        if (kinds[0] !== "taskCreated" || result?.content?.[0]?.text !== expected) {
          fail(`${name} as a task: ${JSON.stringify(kinds)} ${JSON.stringify(result)}`);
        }
      }
      const created = wire.filter((m) => m.result?.task?.taskId).length;
      if (created !== 2) fail(`tasks created: ${created}, expected 2`);
      note = ` (${created} tasks)`;
      // 2025-11-25: the approval asked while serving `tasks/result` names its task (issue 51).
      const taskIds = wire.filter((m) => m.result?.task?.taskId).map((m) => m.result.task.taskId);
      if (canAsk) {
        const related = wire
          .filter((m) => m.method === "elicitation/create" && m.params?.message === "Publish report q3?")
          .map((m) => m.params?._meta?.["io.modelcontextprotocol/related-task"]?.taskId);
        if (related.length !== 1 || related[0] !== taskIds[1]) {
          fail(`publish_report's elicitation related-task: ${JSON.stringify(related)}, task ${taskIds[1]}`);
        }
      }
      // A task is bound to the session that started it: another session of the same server
      // gets what an unknown id gets, and the owner still reads it.
      if (target.url !== undefined && !stateless) {
        const other = new sdk.Client({ name: "toolnexus-typescript-check-other", version: "1.0.0" }, {});
        await other.connect(new sdk.StreamableHTTPClientTransport(new URL(target.url)));
        try {
          const answers = [];
          for (const id of [taskIds[0], "no-such-task"]) {
            try {
              answers.push(`answered ${JSON.stringify(await other.experimental.tasks.getTask(id))}`);
            } catch (error) {
              answers.push(`${error.code}: ${String(error.message).replaceAll(id, "ID")}`);
            }
          }
          if (answers[0] !== answers[1] || !answers[0].startsWith("-32602")) {
            fail(`tasks/get from another session: ${answers[0]}; unknown id: ${answers[1]}`);
          }
          const own = await tasks.getTask(taskIds[0]);
          if (own?.status !== "completed") fail(`owner's tasks/get after: ${JSON.stringify(own)}`);
        } finally {
          await other.close();
        }
        note = ` (${created} tasks, foreign tasks/get refused)`;
      }
    }
  } finally {
    await mcp.close();
  }
  return [negotiated, failures, note];
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
    if (up) return { child, target: { url: `http://127.0.0.1:${port}/mcp` } };
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

const INSPECTOR = join(MODULES, "@modelcontextprotocol/inspector");
// What each `--protocol-era` must end on against this server.
const ERAS = { legacy: "2025-11-25", auto: "2026-07-28", modern: "2026-07-28" };

/** Runs the Inspector CLI once; resolves to its exit code and parsed JSON output. */
function inspector(args, scratch) {
  const launcher = join(INSPECTOR, "clients/launcher/build/index.js");
  // Its catalog and client config go to the scratch folder, not the user's home.
  const env = {
    ...process.env,
    MCP_CATALOG_PATH: join(scratch, "mcp.json"),
    MCP_CLIENT_CONFIG_PATH: join(scratch, "client.json"),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, "--cli", ...args, "--format", "json", "-q"], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { unparsed: stdout, stderr };
      }
      resolve({ code, json });
    });
  });
}

/**
 * The Inspector CLI (a client of the v2 SDK that declares no elicitation): tools/list and
 * tools/call. On stdio it runs the server through `tee`, to see which era it negotiated.
 */
async function inspectorCheck(target, era) {
  const failures = [];
  const fail = (message) => failures.push(message);
  const scratch = mkdtempSync(join(tmpdir(), "mcp-inspector-"));
  let targetArgs;
  let proxy;
  let negotiated;
  if (target.command !== undefined) {
    const wrapper = join(scratch, "server.sh");
    writeFileSync(
      wrapper,
      `#!/bin/sh\ntee '${scratch}/in' | '${target.command}' 2>/dev/null | tee '${scratch}/out'\n`,
    );
    chmodSync(wrapper, 0o755);
    targetArgs = [wrapper];
  } else {
    proxy = await recordingProxy(target.url);
    targetArgs = ["--server-url", proxy.url, "--transport", "http"];
  }
  const run = (...args) => inspector([...targetArgs, "--protocol-era", era, ...args], scratch);
  try {
    const list = await run("--method", "tools/list");
    const names = (list.json.result?.tools ?? []).map((t) => t.name).sort();
    if (list.code !== 0 || !isDeepStrictEqual(names, EXPECTED_TOOLS)) {
      fail(`tools/list: exit ${list.code} ${JSON.stringify(list.json).slice(0, 300)}`);
    }
    // The era shows in what the CLI sent after connecting: 2025-* answers `initialize` with
    // the version; 2026-07-28 has no handshake and names the version in each request's `_meta`.
    const sent = proxy?.sent ?? readLines(join(scratch, "in"));
    const first = sent[0];
    if (first?.method === "initialize") {
      const answers = proxy ? proxy.answered : readLines(join(scratch, "out"));
      negotiated = answers.find((m) => m.id === first.id)?.result?.protocolVersion;
    } else if (first?.method === "server/discover") {
      negotiated = sent.at(-1)?.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
    }
    if (negotiated !== ERAS[era])
      fail(
        `negotiated ${negotiated}, expected ${ERAS[era]}; first sent ${JSON.stringify(first).slice(0, 200)}`,
      );
    const calls = [
      [["--tool-name", "add", "--tool-arg", "a=2", "b=40"], 0, "42", false],
      [["--tool-name", "count_to", "--tool-args-json", '{"n":3}'], 0, "counted to 3", false],
      [["--tool-name", "note_stats"], 0, '{"notes":3,"words":120}', false],
      // The CLI declares no elicitation, so the approval comes back as the isError prompt
      // (README's table), and the CLI exits 5 (`tool_is_error`).
      [
        ["--tool-name", "delete_note", "--tool-arg", "id=1"],
        5,
        cannotAsk("approval", "Delete note 1?"),
        true,
      ],
    ];
    for (const [args, code, text, isError] of calls) {
      const { code: exit, json } = await run("--method", "tools/call", ...args);
      const result = json.result ?? {};
      if (exit !== code || result.content?.[0]?.text !== text || (result.isError === true) !== isError) {
        fail(
          `${args[1]}: exit ${exit}, expected ${code} and ${JSON.stringify(text)}: ${JSON.stringify(json).slice(0, 300)}`,
        );
      }
      if (
        args[1] === "note_stats" &&
        !isDeepStrictEqual(result.structuredContent, { notes: 3, words: 120 })
      ) {
        fail(`note_stats: structuredContent=${JSON.stringify(result.structuredContent)}`);
      }
    }
  } finally {
    proxy?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return [negotiated, failures];
}

const readLines = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/**
 * A loopback HTTP proxy in front of `url` that keeps every JSON-RPC message the client sent
 * and every plain-JSON answer (an `initialize` answer, in session mode too, is plain JSON or
 * one SSE event; both are read).
 */
async function recordingProxy(url) {
  const upstream = new URL(url);
  const sent = [];
  const answered = [];
  const server = createHttpServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (body.length) sent.push(...[JSON.parse(body)].flat());
      const headers = { ...req.headers, host: upstream.host };
      const forward = httpRequest(upstream, { method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        const text = [];
        answer.on("data", (chunk) => {
          text.push(chunk);
          res.write(chunk);
        });
        answer.on("end", () => {
          res.end();
          for (const piece of Buffer.concat(text).toString().split("\n")) {
            const json = piece.replace(/^data: ?/, "").trim();
            if (json.startsWith("{")) answered.push(JSON.parse(json));
          }
        });
      });
      forward.on("error", () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, sent, answered, close };
}

const TRANSPORTS = [
  ["stdio", async () => ({ child: null, target: { command: SERVER } })],
  ["http sessions", () => startHttp(false)],
  ["http stateless", () => startHttp(true)],
];

let total = 0;
let rows = 0;
/** Runs `runOne(column, target, stateless)` against a fresh server per transport and column. */
async function matrix(columns, runOne) {
  for (const [transport, start] of TRANSPORTS) {
    for (const column of columns) {
      const { child, target } = await start();
      let negotiated = "?";
      let failures;
      let note = "";
      try {
        const run = runOne(column, target, transport === "http stateless");
        [negotiated, failures, note = ""] = await withTimeout(run, 120_000, column.name);
      } catch (error) {
        failures = [`${error?.name}: ${error?.message}`];
      } finally {
        child?.kill("SIGTERM");
      }
      rows += 1;
      const status = (failures.length ? "FAILED" : "ok") + note;
      console.log(
        `${transport.padEnd(15)} ${column.name.padEnd(10)} ${String(negotiated).padEnd(11)} ${status}`,
      );
      for (const failure of failures) console.log(`    ${failure}`);
      total += failures.length;
    }
  }
}

const versions = ["client", "sdk"].map(
  (pkg) => `@modelcontextprotocol/${pkg} ${version(`@modelcontextprotocol/${pkg}`)}`,
);
console.log(`node ${process.versions.node}, ${versions.join(", ")}, server ${SERVER}`);
await matrix(CLIENTS, check);
if (existsSync(join(INSPECTOR, "package.json"))) {
  console.log(`@modelcontextprotocol/inspector ${version("@modelcontextprotocol/inspector")} --cli`);
  const eras = Object.keys(ERAS).map((era) => ({ name: `cli ${era}`, era }));
  await matrix(eras, ({ era }, target) => inspectorCheck(target, era));
} else {
  console.log(`@modelcontextprotocol/inspector not in ${MODULES}: its CLI was not tried`);
}
console.log(`${total ? "FAILED" : "ok"}: ${rows} runs, ${total} failed checks`);
process.exit(total ? 1 : 0);
