//! The little URL handling toolnexus needs, in one place: the path of a URL, its last
//! segment, and percent-coding. Deliberately not a URL parser: parts carry URLs verbatim, and
//! these helpers only read a file name or an extension out of them.

/// The path of `url`: what follows the scheme and host, up to any query or fragment,
/// starting with its `/` (`https://example.com/a/b.png?x=1` ⇒ `/a/b.png`); empty when the URL
/// has no path. Only the path names a file: the host's `.com` is not an extension.
pub(crate) fn path(url: &str) -> &str {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    let after_scheme = without_query
        .split_once("://")
        .map_or(without_query, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map_or("", |slash| &after_scheme[slash..])
}

/// The last segment of `url`'s [`path`], or `None` when that segment is empty (no path, or a
/// path ending in `/`).
pub(crate) fn last_segment(url: &str) -> Option<&str> {
    path(url)
        .rsplit('/')
        .next()
        .filter(|segment| !segment.is_empty())
}

/// Decodes `%XX` escapes; `None` when a `%` is not followed by two hex digits.
pub(crate) fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Percent-encodes everything outside RFC 3986's unreserved characters, as `%XX` (uppercase).
pub(crate) fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::result::url::*;

    #[test]
    fn the_path_leaves_out_scheme_host_query_and_fragment() {
        assert_eq!(path("https://example.com/a/b.png?x=1#f"), "/a/b.png");
        assert_eq!(path("https://example.com"), "");
        assert_eq!(path("http://h?x=/a.png"), "");
        assert_eq!(path("example.com/x.pdf"), "/x.pdf");
    }

    #[test]
    fn the_last_segment_is_none_when_empty() {
        assert_eq!(last_segment("https://example.com/a/b.png"), Some("b.png"));
        assert_eq!(last_segment("https://example.com/dir/"), None);
        assert_eq!(last_segment("https://example.com"), None);
    }

    #[test]
    fn percent_coding_round_trips() {
        assert_eq!(percent_encode("r é/p.pdf"), "r%20%C3%A9%2Fp.pdf");
        assert_eq!(
            percent_decode("r%20%C3%A9%2Fp.pdf").unwrap(),
            "r é/p.pdf".as_bytes()
        );
        assert_eq!(percent_decode("bad%2"), None);
        assert_eq!(percent_decode("bad%zz"), None);
    }
}
