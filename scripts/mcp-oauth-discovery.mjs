#!/usr/bin/env node
// MCP authorization (SPEC §12B) as the official TypeScript SDK's OAuth client performs it,
// against `examples/mcp_server --http` with `MCP_RESOURCE` and `MCP_AUTHORIZATION_SERVER`:
//
//   1. the SDK's `extractResourceMetadataUrl` reads the `401`'s `WWW-Authenticate` and finds our
//      Protected Resource Metadata; `discoverOAuthProtectedResourceMetadata` reads and validates
//      the document, at the URL the 401 names and found on its own (RFC 9728 paths);
//   2. a `Client` whose transport has an `authProvider` is refused, discovers the authorization
//      server from our metadata, registers, and sends the user to `/authorize` with our resource
//      as the `resource` indicator (RFC 8707) and a PKCE challenge;
//   3. `finishAuth(code)` exchanges the code for a token (the same `resource` sent), and the
//      reconnected client calls a tool with that token.
//
// The authorization server is a stand-in written here (RFC 8414 metadata, dynamic client
// registration, a token endpoint that checks the code, the PKCE verifier and the resource); the
// client side is entirely the SDK's. Not in CI (it needs npm):
//
//   cargo build --example mcp_server --features mcp-http
//   npm i --prefix /tmp/mcp-ts @modelcontextprotocol/sdk
//   MCP_TS_MODULES=/tmp/mcp-ts/node_modules node scripts/mcp-oauth-discovery.mjs
//
// It prints each step and exits 0 when every one held. Last run: 2026-12-02,
// @modelcontextprotocol/sdk 1.32.2, Node 20.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import assert from "node:assert/strict";

const modules = process.env.MCP_TS_MODULES ?? "/tmp/mcp-ts/node_modules";
const sdk = (file) =>
  import(pathToFileURL(path.join(modules, "@modelcontextprotocol/sdk/dist/esm", file)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const auth = await sdk("client/auth.js");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "token-issued-by-the-stand-in";
const CODE = "code-the-user-brought-back";

/// A port nothing listens on now.
async function freePort() {
  const server = createNetServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/// The stand-in authorization server; `seen` records what the client sent it.
async function authorizationServer(seen) {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, "http://stand-in");
    let body = "";
    for await (const chunk of request) body += chunk;
    const json = (status, value) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      const issuer = `http://127.0.0.1:${server.address().port}`;
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register" && request.method === "POST") {
      seen.registered = JSON.parse(body);
      return json(201, { ...seen.registered, client_id: "client-1" });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(body);
      seen.token = Object.fromEntries(form);
      const challenge = createHash("sha256")
        .update(form.get("code_verifier") ?? "")
        .digest("base64url");
      const valid =
        form.get("grant_type") === "authorization_code" &&
        form.get("code") === CODE &&
        challenge === seen.challenge;
      return valid
        ? json(200, { access_token: TOKEN, token_type: "Bearer", expires_in: 3600 })
        : json(400, { error: "invalid_grant" });
    }
    json(404, { error: "not_found" });
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return server;
}

/// The SDK's `OAuthClientProvider`, kept in memory; the "browser" records where it was sent.
function memoryProvider(seen) {
  const stored = {};
  return {
    get redirectUrl() {
      return "http://127.0.0.1:1/callback";
    },
    get clientMetadata() {
      return {
        client_name: "toolnexus oauth discovery check",
        redirect_uris: ["http://127.0.0.1:1/callback"],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => stored.client,
    saveClientInformation: (client) => void (stored.client = client),
    tokens: () => stored.tokens,
    saveTokens: (tokens) => void (stored.tokens = tokens),
    redirectToAuthorization: (url) => {
      seen.authorize = url;
      seen.challenge = url.searchParams.get("code_challenge");
    },
    saveCodeVerifier: (verifier) => void (stored.verifier = verifier),
    codeVerifier: () => stored.verifier,
  };
}

async function main() {
  const seen = {};
  const issuer = await authorizationServer(seen);
  const issuerUrl = `http://127.0.0.1:${issuer.address().port}`;
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}/mcp`;
  const binary = path.join(root, "target/debug/examples/mcp_server");
  const child = spawn(binary, ["--http", `127.0.0.1:${port}`, "--stateless"], {
    env: {
      ...process.env,
      MCP_BEARER_TOKEN: TOKEN,
      MCP_RESOURCE: serverUrl,
      MCP_AUTHORIZATION_SERVER: issuerUrl,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    const lines = createInterface({ input: child.stderr });
    const [first] = await Promise.race([
      new Promise((done) => lines.once("line", (line) => done([line]))),
      new Promise((_, fail) => setTimeout(() => fail(new Error("mcp_server did not start")), 30000)),
    ]);
    assert.match(first, new RegExp(`http://127\\.0\\.0\\.1:${port}/mcp`));

    // 1. The 401 and the metadata, read by the SDK's own functions.
    const refused = await fetch(serverUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    assert.equal(refused.status, 401);
    const named = auth.extractResourceMetadataUrl(refused);
    assert.equal(String(named), `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
    const pointed = await auth.discoverOAuthProtectedResourceMetadata(serverUrl, {
      resourceMetadataUrl: named,
    });
    const found = await auth.discoverOAuthProtectedResourceMetadata(serverUrl);
    for (const metadata of [pointed, found]) {
      assert.equal(metadata.resource, serverUrl);
      assert.deepEqual(metadata.authorization_servers, [issuerUrl]);
    }
    console.log(`ok  401 names ${named}; the SDK reads resource ${pointed.resource}, issuer ${issuerUrl}`);

    // 2. A client with an authProvider: refused, it discovers, registers, and sends the user on.
    const provider = memoryProvider(seen);
    const refusedClient = new Client({ name: "oauth-check", version: "1.0.0" });
    await assert.rejects(
      refusedClient.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider })),
      (error) => error instanceof auth.UnauthorizedError,
    );
    assert.ok(seen.registered, "the SDK registered with the authorization server our metadata named");
    assert.equal(seen.authorize.origin + seen.authorize.pathname, `${issuerUrl}/authorize`);
    assert.equal(seen.authorize.searchParams.get("resource"), serverUrl);
    assert.equal(seen.authorize.searchParams.get("code_challenge_method"), "S256");
    console.log(`ok  the SDK sends the user to ${seen.authorize.origin}${seen.authorize.pathname} for resource ${serverUrl}`);

    // 3. The code exchanged for a token, and a call made with it.
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
    await transport.finishAuth(CODE);
    assert.equal(seen.token.resource, serverUrl);
    const client = new Client({ name: "oauth-check", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    assert.equal(sum.content[0].text, "5");
    await client.close();
    console.log("ok  the token the SDK obtained calls add(2, 3) = 5");
  } finally {
    child.kill();
    issuer.close();
  }
}

main().then(
  () => console.log("mcp-oauth-discovery: all held"),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
