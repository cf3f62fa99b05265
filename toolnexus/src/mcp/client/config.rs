//! `mcp.json`, the file MCP clients share: `{"mcpServers": {NAME: {"command", "args", "env"} |
//! {"url", "headers"}}}`, with `"type": "stdio" | "http"` accepted (and `"streamable-http"`,
//! which some clients write for the same transport).

use std::collections::BTreeMap;

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Map, Value};

/// How to reach one server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// Every server of `text` (an `mcp.json`), in the file's order.
pub(crate) fn parse(text: &str) -> Result<Vec<(String, Endpoint)>, String> {
    let root: Value =
        serde_json::from_str(text).map_err(|error| format!("not valid JSON: {error}"))?;
    let servers = root
        .get("mcpServers")
        .ok_or("no `mcpServers` object at the top level")?
        .as_object()
        .ok_or("`mcpServers` must be an object of servers by name")?;
    servers
        .iter()
        .map(|(name, entry)| {
            let endpoint = entry
                .as_object()
                .ok_or_else(|| "must be an object".to_owned())
                .and_then(endpoint)
                .map_err(|message| format!("server `{name}`: {message}"))?;
            Ok((name.clone(), endpoint))
        })
        .collect()
}

fn endpoint(entry: &Map<String, Value>) -> Result<Endpoint, String> {
    let kind = match entry.get("type") {
        None => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(_) => return Err("`type` must be a string".to_owned()),
    };
    let remote = match (
        kind,
        entry.contains_key("command"),
        entry.contains_key("url"),
    ) {
        (Some("stdio"), ..) => false,
        (Some("http" | "streamable-http"), ..) => true,
        (Some(other), ..) => {
            return Err(format!("`type` is `{other}`; expected `stdio` or `http`"));
        }
        (None, true, true) => {
            return Err(
                "has both `command` and `url`; give one, or say which with `type`".to_owned(),
            );
        }
        (None, true, false) => false,
        (None, false, true) => true,
        (None, false, false) => {
            return Err("needs `command` (a stdio server) or `url` (an HTTP server)".to_owned());
        }
    };
    if remote {
        let url = string(entry, "url")?.ok_or("needs `url`")?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "`url` must start with http:// or https://, got `{url}`"
            ));
        }
        Ok(Endpoint::Http {
            url,
            headers: strings(entry, "headers")?,
        })
    } else {
        let command = string(entry, "command")?.ok_or("needs `command`")?;
        if command.is_empty() {
            return Err("`command` is empty".to_owned());
        }
        let args = match entry.get("args") {
            None => Vec::new(),
            Some(Value::Array(args)) => args
                .iter()
                .enumerate()
                .map(|(index, arg)| {
                    arg.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("`args[{index}]` must be a string"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("`args` must be an array of strings".to_owned()),
        };
        Ok(Endpoint::Stdio {
            command,
            args,
            env: strings(entry, "env")?,
        })
    }
}

fn string(entry: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match entry.get(key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn strings(entry: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match entry.get(key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| match value {
                Value::String(value) => Ok((name.clone(), value.clone())),
                _ => Err(format!("`{key}.{name}` must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be an object of strings")),
    }
}

/// rmcp's HTTP client configuration: an `Authorization: Bearer` header becomes its auth
/// header (rmcp refuses it among the custom ones), the others are sent as given.
pub(super) fn http_config(
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<StreamableHttpClientTransportConfig, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    let mut custom = std::collections::HashMap::new(); // rmcp takes a HashMap
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("authorization") {
            if let Some(token) = value.strip_prefix("Bearer ") {
                config = config.auth_header(token.to_owned());
                continue;
            }
        }
        let header = http::HeaderName::try_from(name.as_str())
            .map_err(|_| format!("has a header name that is not valid: `{name}`"))?;
        let value = http::HeaderValue::try_from(value.as_str())
            .map_err(|_| format!("has a value for header `{name}` that is not valid"))?;
        custom.insert(header, value);
    }
    Ok(config.custom_headers(custom))
}

pub(super) fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#'])
        .next()
        .unwrap_or(rest)
        .to_owned()
}

/// `${VAR}` in header values replaced by the environment's `VAR` (empty when unset), as the
/// other ports do.
pub(super) fn expand_env(endpoint: Endpoint) -> Endpoint {
    match endpoint {
        Endpoint::Http { url, headers } => Endpoint::Http {
            url,
            headers: headers
                .into_iter()
                .map(|(name, value)| (name, expand(&value)))
                .collect(),
        },
        stdio => stdio,
    }
}

fn expand(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        let var = &rest[start + 2..start + 2 + len];
        if var.is_empty() || !var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            out.push_str(&rest[..start + 2]);
            rest = &rest[start + 2..];
            continue;
        }
        out.push_str(&rest[..start]);
        out.push_str(&std::env::var(var).unwrap_or_default());
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use crate::mcp::client::config::*;

    fn error(text: &str) -> String {
        parse(text).unwrap_err()
    }

    #[test]
    fn stdio_and_http_entries_read_with_or_without_a_type() {
        let servers = parse(
            r#"{"mcpServers": {
                "files": {"command": "npx", "args": ["-y", "fs"], "env": {"A": "1"}},
                "search": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X-K": "v"}},
                "local": {"type": "stdio", "command": "srv"}
            }}"#,
        )
        .unwrap();
        assert_eq!(
            servers,
            [
                (
                    "files".to_owned(),
                    Endpoint::Stdio {
                        command: "npx".to_owned(),
                        args: vec!["-y".to_owned(), "fs".to_owned()],
                        env: BTreeMap::from([("A".to_owned(), "1".to_owned())]),
                    }
                ),
                (
                    "search".to_owned(),
                    Endpoint::Http {
                        url: "http://127.0.0.1:1/mcp".to_owned(),
                        headers: BTreeMap::from([("X-K".to_owned(), "v".to_owned())]),
                    }
                ),
                (
                    "local".to_owned(),
                    Endpoint::Stdio {
                        command: "srv".to_owned(),
                        args: vec![],
                        env: BTreeMap::new(),
                    }
                ),
            ]
        );
    }

    #[test]
    fn every_bad_file_names_the_server_and_the_field() {
        let cases = [
            (
                "{",
                "not valid JSON: EOF while parsing an object at line 1 column 1",
            ),
            ("{}", "no `mcpServers` object at the top level"),
            (
                r#"{"mcpServers": []}"#,
                "`mcpServers` must be an object of servers by name",
            ),
            (
                r#"{"mcpServers": {"a": 1}}"#,
                "server `a`: must be an object",
            ),
            (
                r#"{"mcpServers": {"a": {}}}"#,
                "server `a`: needs `command` (a stdio server) or `url` (an HTTP server)",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}"#,
                "server `a`: has both `command` and `url`; give one, or say which with `type`",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "sse", "url": "http://h"}}}"#,
                "server `a`: `type` is `sse`; expected `stdio` or `http`",
            ),
            (
                r#"{"mcpServers": {"a": {"type": 1}}}"#,
                "server `a`: `type` must be a string",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "http"}}}"#,
                "server `a`: needs `url`",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "stdio"}}}"#,
                "server `a`: needs `command`",
            ),
            (
                r#"{"mcpServers": {"a": {"command": 7}}}"#,
                "server `a`: `command` must be a string",
            ),
            (
                r#"{"mcpServers": {"a": {"command": ""}}}"#,
                "server `a`: `command` is empty",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "args": "-y"}}}"#,
                "server `a`: `args` must be an array of strings",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "args": ["-y", 2]}}}"#,
                "server `a`: `args[1]` must be a string",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}"#,
                "server `a`: `env` must be an object of strings",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}"#,
                "server `a`: `env.A` must be a string",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "ftp://h"}}}"#,
                "server `a`: `url` must start with http:// or https://, got `ftp://h`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h", "headers": {"K": true}}}}"#,
                "server `a`: `headers.K` must be a string",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h", "headers": "K: v"}}}"#,
                "server `a`: `headers` must be an object of strings",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(error(text), expected, "{text}");
        }
    }

    #[test]
    fn header_values_take_variables_from_the_environment() {
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("Bearer ${PATH}!"), format!("Bearer {path}!"));
        assert_eq!(expand("${TOOLNEXUS_SURELY_UNSET_27}x"), "x");
        assert_eq!(expand("$ {A} ${} ${a-b} ${open"), "$ {A} ${} ${a-b} ${open");
    }

    #[test]
    fn a_server_is_named_by_its_host() {
        assert_eq!(host_of("http://127.0.0.1:8765/mcp"), "127.0.0.1:8765");
        assert_eq!(host_of("https://mcp.example.com"), "mcp.example.com");
    }
}
