//! The `auth/*` scenarios of the MCP conformance suite: connect with an [`OAuthClient`],
//! answer each login the way a person's browser would (the suite's authorization server
//! redirects at once, so fetching the authorization URL yields the redirect), list the tools
//! and call each one through [`Toolkit::call`], where a login a call needs (a scope step-up)
//! is a suspension answered the same way. A context that carries an enterprise IdP's ID
//! token or a workload's JWT signs in with it instead, no login at all.

use std::error::Error;

use toolnexus::mcp::{EnterpriseIdp, McpTools, OAuthClient};
use toolnexus::serde_json::{Map, Value, json};
use toolnexus::{Answer, Reason, Request, Toolkit};

/// Where the suite's authorization server sends the browser back; nothing listens there,
/// since the redirect is read from the authorization URL's own answer.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document the suite's servers accept.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Logins one connection may ask for before giving up (a server that rejects every token).
const MAX_LOGINS: usize = 3;

/// Runs `scenario` against the MCP server at `server_url`.
pub async fn run(scenario: &str, server_url: &str) -> Result<(), Box<dyn Error>> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| toolnexus::serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let mut oauth = OAuthClient::new(REDIRECT_URI)
        .client_name("toolnexus conformance client")
        .client_metadata_url(CLIENT_METADATA_URL);
    if let Some(id) = context.get("client_id").and_then(Value::as_str) {
        oauth = oauth.client_id(id);
        if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
            oauth = oauth.client_secret(secret);
        }
        // `private_key_jwt` (SEP-1046): the key in PKCS#8 PEM, and the algorithm, ES256.
        if let Some(pem) = context.get("private_key_pem").and_then(Value::as_str) {
            let algorithm = context.get("signing_algorithm").and_then(Value::as_str);
            if algorithm.is_some_and(|algorithm| algorithm != "ES256") {
                return Err(format!("{scenario}: `OAuthClient` signs with ES256 only").into());
            }
            oauth = oauth.client_private_key(pem);
        }
    }
    // The client credentials extension: the client signs in as itself, no person.
    if scenario.starts_with("auth/client-credentials") {
        oauth = oauth.client_credentials();
    }
    // The DPoP extension (SEP-1932): tokens bound to the client's key, a proof with each use.
    if scenario.starts_with("auth/dpop") {
        oauth = oauth.dpop();
    }
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    // Enterprise-managed authorization: the person's ID token from the IdP they signed in to.
    if let (Some(issuer), Some(endpoint), Some(client), Some(id_token)) = (
        text("idp_issuer"),
        text("idp_token_endpoint"),
        text("idp_client_id"),
        text("idp_id_token"),
    ) {
        let idp = EnterpriseIdp::new(issuer, endpoint, client);
        oauth = oauth.enterprise_idp(idp, move || std::future::ready(Ok(id_token.clone())));
    }
    // Workload identity federation: the JWT the platform gave the workload.
    if let Some(jwt) = text("valid_jwt") {
        oauth = oauth.workload_identity(move || std::future::ready(Ok(jwt.clone())));
    }
    let server = McpTools::http(server_url).oauth(oauth.clone());
    let mut logins = 0;
    let tools = loop {
        match server.clone().connect().await {
            Ok(tools) => break tools,
            Err(error) => {
                let login = error.pending().ok_or_else(|| error.to_string())?;
                logins += 1;
                if logins > MAX_LOGINS {
                    return Err(format!(
                        "{scenario}: still asked to sign in after {MAX_LOGINS} logins"
                    )
                    .into());
                }
                oauth.sign_in(&authorize(login.clone()).await).await?;
            }
        }
    };
    let toolkit = Toolkit::new().with_all(tools.tools());
    for tool in toolkit.tools() {
        let name = tool.name().to_owned();
        let result = toolkit.call(&name, json!({}), authorize).await;
        eprintln!("{scenario}: `{name}` answered: {}", result.output);
    }
    Ok(())
}

/// Answers a login as the browser would: the authorization URL's redirect, or a decline
/// saying why there was none.
async fn authorize(login: Request) -> Answer {
    match redirect_of(login.url.as_deref().unwrap_or_default()).await {
        Ok(redirect) => {
            let mut data = Map::new();
            data.insert("redirect".to_owned(), Value::String(redirect));
            Answer::approve(&login).with_data(data)
        }
        Err(why) => {
            eprintln!("login failed: {why}");
            Answer::decline(&login, Reason::Declined)
        }
    }
}

/// The `Location` a plain-HTTP GET of `url` answers with (redirects not followed).
async fn redirect_of(url: &str) -> Result<String, Box<dyn Error>> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url
        .strip_prefix("http://")
        .ok_or("the authorization URL is not http://")?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = tokio::net::TcpStream::connect(authority).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await?;
    let answer = String::from_utf8_lossy(&answer);
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location")
                .then(|| value.trim().to_owned())
        })
        .ok_or_else(|| {
            format!(
                "the authorization URL answered without a redirect: {}",
                head.lines().next().unwrap_or_default()
            )
            .into()
        })
}
