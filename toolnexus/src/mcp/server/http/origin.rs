//! The `Origin` allow-list: RFC 6454 origins (`scheme://host[:port]`, or `null`) compared by
//! scheme, host and port, with `:*` for any port.

use std::io;

use hyper::header::HeaderValue;

/// The origins a server accepts.
#[derive(Debug)]
pub(super) struct AllowedOrigins(Vec<Allowed>);

#[derive(Debug, PartialEq)]
enum Allowed {
    /// `null`, what browsers send from sandboxed frames and `file:` pages.
    Null,
    Origin {
        scheme: String,
        host: String,
        port: PortRule,
    },
}

#[derive(Debug, PartialEq)]
enum PortRule {
    /// `:*`.
    Any,
    /// This port; `None` for a scheme without a default port written without one.
    Is(Option<u16>),
}

/// An origin as a browser sends it, or an allow-list entry before its port is resolved.
struct Parsed<'a> {
    scheme: String,
    host: String,
    port: Port<'a>,
}

enum Port<'a> {
    Default,
    Any,
    Number(&'a str),
}

impl AllowedOrigins {
    /// Parses `entries`; a malformed one is an `InvalidInput` error naming it.
    pub(super) fn parse(entries: &[String]) -> io::Result<Self> {
        entries
            .iter()
            .map(|entry| {
                allowed(entry).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "allowed origin `{entry}` is not `scheme://host`, `scheme://host:port`, `scheme://host:*` or `null`"
                        ),
                    )
                })
            })
            .collect::<io::Result<_>>()
            .map(Self)
    }

    /// `http` and `https` on `localhost`, `127.0.0.1` and `[::1]`, any port.
    pub(super) fn loopback() -> Self {
        let entries = ["http", "https"]
            .into_iter()
            .flat_map(|scheme| {
                ["localhost", "127.0.0.1", "[::1]"].map(|host| Allowed::Origin {
                    scheme: scheme.to_owned(),
                    host: host.to_owned(),
                    port: PortRule::Any,
                })
            })
            .collect();
        Self(entries)
    }

    /// No origin at all: only requests without an `Origin` header get through.
    pub(super) fn none() -> Self {
        Self(Vec::new())
    }

    /// Whether an `Origin` header value is on the list; one that is not a valid origin never is.
    pub(super) fn allows(&self, origin: &HeaderValue) -> bool {
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        if origin == "null" {
            return self.0.contains(&Allowed::Null);
        }
        let Some(Parsed { scheme, host, port }) = parse(origin) else {
            return false;
        };
        let port = match port {
            Port::Default => default_port(&scheme),
            Port::Number(port) => match port.parse() {
                Ok(port) => Some(port),
                Err(_) => return false,
            },
            Port::Any => return false,
        };
        self.0.iter().any(|allowed| match allowed {
            Allowed::Null => false,
            Allowed::Origin {
                scheme: allowed_scheme,
                host: allowed_host,
                port: allowed_port,
            } => {
                *allowed_scheme == scheme
                    && *allowed_host == host
                    && match allowed_port {
                        PortRule::Any => true,
                        PortRule::Is(allowed_port) => *allowed_port == port,
                    }
            }
        })
    }
}

fn allowed(entry: &str) -> Option<Allowed> {
    if entry == "null" {
        return Some(Allowed::Null);
    }
    let Parsed { scheme, host, port } = parse(entry)?;
    let port = match port {
        Port::Any => PortRule::Any,
        Port::Default => PortRule::Is(default_port(&scheme)),
        Port::Number(port) => PortRule::Is(Some(port.parse().ok()?)),
    };
    Some(Allowed::Origin { scheme, host, port })
}

/// `scheme://host[:port]` with nothing after it, scheme and host lowercased.
fn parse(text: &str) -> Option<Parsed<'_>> {
    let (scheme, authority) = text.split_once("://")?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || authority.contains(['/', '?', '#', '@']) {
        return None;
    }
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() || host.contains(':') && !host.starts_with('[') {
        return None;
    }
    let port = match port {
        None => Port::Default,
        Some("*") => Port::Any,
        Some(port) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            Port::Number(port)
        }
        Some(_) => return None,
    };
    Some(Parsed {
        scheme: scheme.to_ascii_lowercase(),
        host: host.to_ascii_lowercase(),
        port,
    })
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::mcp::server::http::origin::*;

    fn allows(list: &AllowedOrigins, origin: &'static str) -> bool {
        list.allows(&HeaderValue::from_static(origin))
    }

    #[test]
    fn loopback_origins_at_any_port() {
        let list = AllowedOrigins::loopback();
        for origin in [
            "http://localhost:5173",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "HTTP://LOCALHOST:1",
        ] {
            assert!(allows(&list, origin), "{origin}");
        }
        for origin in [
            "http://localhost.evil.com",
            "http://evil.com",
            "null",
            "file://",
            "http://127.0.0.1/path",
            "http://user@localhost",
            "http://localhost:*",
            "http://localhost:99999",
        ] {
            assert!(!allows(&list, origin), "{origin}");
        }
        assert!(!allows(&AllowedOrigins::none(), "http://localhost"));
    }

    #[test]
    fn configured_entries_match_scheme_host_and_port() {
        let list = AllowedOrigins::parse(&[
            "https://app.example.com".to_owned(),
            "http://dev.example.com:8080".to_owned(),
            "http://any.example.com:*".to_owned(),
            "null".to_owned(),
            "chrome-extension://abcdef".to_owned(),
        ])
        .unwrap();
        assert!(allows(&list, "https://app.example.com"));
        assert!(allows(&list, "https://app.example.com:443"));
        assert!(!allows(&list, "https://app.example.com:8443"));
        assert!(!allows(&list, "http://app.example.com"));
        assert!(allows(&list, "http://dev.example.com:8080"));
        assert!(!allows(&list, "http://dev.example.com"));
        assert!(allows(&list, "http://any.example.com:1234"));
        assert!(allows(&list, "null"));
        assert!(allows(&list, "chrome-extension://abcdef"));
        assert!(!allows(&list, "chrome-extension://abcdef:1"));
    }

    #[test]
    fn a_malformed_entry_is_refused_by_name() {
        for entry in [
            "example.com",
            "https://example.com/",
            "https://:443",
            "https://h:x",
        ] {
            let error = AllowedOrigins::parse(&[entry.to_owned()]).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
            assert!(error.to_string().contains(entry), "{error}");
        }
    }
}
