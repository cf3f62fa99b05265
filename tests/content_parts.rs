//! Content parts (SPEC §2), their errors, the wire forms of the core types (SPEC §1, §3) and
//! every row of the lowering table (SPEC §4), exercised through the public API only.

mod common;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::error::Error as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, json};
use toolnexus::{
    Answer, AttachOptions, ContentPart, ContentPartError, IntoToolResult, Json, Media, Reason,
    Request, Source, ToolResult, attach, attach_with, describe_part, from_bytes, from_path,
    part_bytes, pending_of,
};

use common::{fixture_png, fixture_png_base64};

const MIB: u64 = 1024 * 1024;

fn media(part: &ContentPart) -> &Media {
    part.media()
        .unwrap_or_else(|| panic!("not a media part: {part:?}"))
}

fn data_of(part: &ContentPart) -> &str {
    match &media(part).source {
        Source::Data(data) => data,
        Source::Url(url) => panic!("expected data, found url {url}"),
    }
}

fn with_limit(limit: usize) -> AttachOptions {
    AttachOptions {
        max_part_bytes: Some(limit),
        ..AttachOptions::default()
    }
}

/// A file in `dir` named `name` holding `bytes`.
fn file_in(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn str_path(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8 here")
}

// ---------------------------------------------------------------------------------------------
// One test per `ContentPartError` code.

#[test]
fn source_conflict_when_a_part_has_both_data_and_url() {
    let wire = r#"{"type":"image","mimeType":"image/png","data":"U0VDUkVUUEFZTE9BRA==","url":"https://example.com/a.png"}"#;
    let error = serde_json::from_str::<ContentPart>(wire).unwrap_err();
    let expected = ContentPartError::SourceConflict;
    assert_eq!(expected.code(), "source-conflict");
    assert!(
        error.to_string().starts_with(&expected.to_string()),
        "{error}"
    );
    assert!(expected.to_string().contains("exactly one"));
    assert!(!error.to_string().contains("U0VDUkVUUEFZTE9BRA"));
}

#[test]
fn source_missing_when_a_part_has_neither_data_nor_url() {
    for kind in ["image", "file", "audio"] {
        let wire = format!(r#"{{"type":"{kind}","mimeType":"image/png"}}"#);
        let error = serde_json::from_str::<ContentPart>(&wire).unwrap_err();
        let expected = ContentPartError::SourceMissing;
        assert_eq!(expected.code(), "source-missing");
        assert!(
            error.to_string().starts_with(&expected.to_string()),
            "{error}"
        );
    }
}

#[test]
fn unknown_extension_for_a_path_or_url_without_a_known_one() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["notes.zzqx", "Makefile"] {
        let path = file_in(dir.path(), name, b"x");
        let error = attach(str_path(&path)).unwrap_err();
        assert_eq!(error.code(), "unknown-extension", "{name}");
        assert!(matches!(error, ContentPartError::UnknownExtension { .. }));
        let message = error.to_string();
        assert!(message.contains(name), "{message}");
        assert!(message.contains("mime_type"), "says what to do: {message}");
    }
    for url in [
        "https://example.com/download",
        "https://example.com/file.zzqx?x=1",
        // The host's `.com` is not a file extension.
        "https://example.com",
        "https://example.com/",
    ] {
        let error = attach(url).unwrap_err();
        assert_eq!(error.code(), "unknown-extension", "{url}");
        assert!(error.to_string().contains(url));
    }
}

#[test]
fn too_large_for_a_file_and_a_data_url() {
    // 82 bytes: at the limit is fine, one byte under is not.
    let fixture = fixture_png();
    assert!(attach_with(fixture.to_string_lossy(), with_limit(82)).is_ok());
    let error = attach_with(fixture.to_string_lossy(), with_limit(81)).unwrap_err();
    assert_eq!(error.code(), "too-large");
    assert!(matches!(
        error,
        ContentPartError::TooLarge {
            size: 82,
            limit: 81
        }
    ));
    assert_eq!(
        error.to_string(),
        "content part is 82 bytes, over the 81-byte `max_part_bytes` limit"
    );

    // A data: URL is measured by its decoded bytes (6 here), not its text.
    let url = "data:application/octet-stream;base64,AAECAwQF";
    assert!(attach_with(url, with_limit(6)).is_ok());
    let error = attach_with(url, with_limit(5)).unwrap_err();
    assert!(matches!(
        error,
        ContentPartError::TooLarge { size: 6, limit: 5 }
    ));
    assert!(!error.to_string().contains("AAECAwQF"));

    let url = "data:text/plain,hello";
    let error = attach_with(url, with_limit(4)).unwrap_err();
    assert!(matches!(
        error,
        ContentPartError::TooLarge { size: 5, limit: 4 }
    ));
    assert!(!error.to_string().contains("hello"));
}

#[test]
fn a_sparse_50_mib_file_is_refused_without_being_read() {
    let file = tempfile::Builder::new().suffix(".png").tempfile().unwrap();
    file.as_file().set_len(50 * MIB).unwrap();

    let started = Instant::now();
    let error = attach_with(str_path(file.path()), with_limit(MIB as usize)).unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(error.code(), "too-large");
    assert!(
        matches!(error, ContentPartError::TooLarge { size, limit } if size == 50 * MIB && limit == MIB as usize),
        "{error:?}"
    );
    assert!(
        elapsed < Duration::from_millis(250),
        "refusing took {elapsed:?}"
    );

    // from_path too.
    let error = from_path(file.path(), with_limit(MIB as usize)).unwrap_err();
    assert_eq!(error.code(), "too-large");

    // Proof that nothing is read or allocated: a sparse 1 TiB file cannot be read (or even
    // buffered) in a test run, yet it is refused just as fast. Skipped where the filesystem
    // refuses sparse files that large.
    if file.as_file().set_len(1 << 40).is_ok() {
        let started = Instant::now();
        let error = attach_with(str_path(file.path()), with_limit(MIB as usize)).unwrap_err();
        assert!(matches!(error, ContentPartError::TooLarge { size, .. } if size == 1 << 40));
        assert!(started.elapsed() < Duration::from_millis(250));
    }
}

#[test]
fn io_error_for_a_missing_file_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.png");
    let error = attach(str_path(&path)).unwrap_err();
    assert_eq!(error.code(), "io");
    let ContentPartError::Io {
        path: reported,
        error: io,
    } = &error
    else {
        panic!("expected an io error: {error:?}");
    };
    assert_eq!(reported, &path);
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert!(error.to_string().contains(&path.display().to_string()));
    let source = error.source().expect("the io error is the source");
    assert!(source.downcast_ref::<std::io::Error>().is_some());

    // A directory is not a file either.
    let error = attach_with(
        str_path(dir.path()),
        AttachOptions {
            mime_type: Some("application/octet-stream".into()),
            ..AttachOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(error.code(), "io");
}

#[test]
fn invalid_data_url_never_echoes_the_payload() {
    let cases = [
        ("data:image/png;base64SECRETPAYLOAD", "SECRETPAYLOAD"),
        ("data:image/png;base64,SECRET*PAYLOAD!!", "SECRET*PAYLOAD"),
        ("data:image/png;base64,SECRETPAYLOAD=A", "SECRETPAYLOAD"),
        ("data:text/plain,topsecret%zzpayload", "topsecret"),
        ("data:text/plain,topsecret%4", "topsecret"),
    ];
    for (url, secret) in cases {
        let error = attach(url).unwrap_err();
        assert_eq!(error.code(), "invalid-data-url", "{url}");
        assert!(matches!(error, ContentPartError::InvalidDataUrl { .. }));
        let message = error.to_string();
        assert!(message.starts_with("invalid data: URL: "), "{message}");
        assert!(!message.contains(secret), "{message}");
        assert!(!format!("{error:?}").contains(secret), "{error:?}");
    }
}

#[test]
fn unsupported_is_a_plain_message_with_its_code() {
    let error = ContentPartError::Unsupported {
        detail: "anthropic cannot carry audio parts; describe the audio in text instead".into(),
    };
    assert_eq!(error.code(), "unsupported");
    assert_eq!(
        error.to_string(),
        "anthropic cannot carry audio parts; describe the audio in text instead"
    );
    assert!(error.source().is_none());
}

#[test]
fn every_code_is_distinct() {
    let io = std::io::Error::other("x");
    let errors = [
        ContentPartError::SourceConflict,
        ContentPartError::SourceMissing,
        ContentPartError::UnknownExtension { source: "a".into() },
        ContentPartError::TooLarge { size: 2, limit: 1 },
        ContentPartError::Unsupported { detail: "d".into() },
        ContentPartError::Io {
            path: "p".into(),
            error: io,
        },
        ContentPartError::InvalidDataUrl { reason: "r".into() },
    ];
    let codes: HashSet<&str> = errors.iter().map(ContentPartError::code).collect();
    assert_eq!(
        codes,
        HashSet::from([
            "source-conflict",
            "source-missing",
            "unknown-extension",
            "too-large",
            "unsupported",
            "io",
            "invalid-data-url",
        ])
    );
    for error in &errors {
        let message = error.to_string();
        assert!(!message.is_empty() && !message.ends_with('.'), "{message}");
    }
}

// ---------------------------------------------------------------------------------------------
// data: URLs.

#[test]
fn data_url_base64_form() {
    let b64 = fixture_png_base64();
    let part = attach(format!("data:image/png;base64,{b64}")).unwrap();
    assert!(matches!(part, ContentPart::Image(_)));
    assert_eq!(media(&part).mime_type, "image/png");
    assert_eq!(data_of(&part), b64);
    assert_eq!(part, attach(fixture_png().to_string_lossy()).unwrap());

    // Case-insensitive scheme and `;base64`, whitespace in the payload, unpadded payloads.
    let part = attach("DATA:application/octet-stream;BASE64,AAEC\n AwQ").unwrap();
    assert_eq!(data_of(&part), "AAECAwQ=");
    assert_eq!(part_bytes(&part), 5);
    assert!(matches!(part, ContentPart::File(_)));
}

#[test]
fn data_url_percent_encoded_form() {
    let part = attach("data:text/plain,hello%20world%21").unwrap();
    assert_eq!(media(&part).mime_type, "text/plain");
    assert_eq!(data_of(&part), "aGVsbG8gd29ybGQh"); // "hello world!"
    assert_eq!(describe_part(&part), "file (text/plain, 12 bytes)");

    // Parameters after the mime are not part of it; bytes pass through undecoded.
    let part = attach("data:text/csv;charset=utf-8,a,b%0A1,2").unwrap();
    assert_eq!(media(&part).mime_type, "text/csv");
    assert_eq!(data_of(&part), "YSxiCjEsMg=="); // "a,b\n1,2"

    let part = attach("data:image/svg+xml,%3Csvg%2F%3E").unwrap();
    assert!(matches!(part, ContentPart::Image(_)));
    assert_eq!(data_of(&part), "PHN2Zy8+"); // "<svg/>"
}

#[test]
fn data_url_with_empty_mime_is_octet_stream() {
    for url in ["data:;base64,AAEC", "data:,abc", "data:;charset=utf-8,abc"] {
        let part = attach(url).unwrap();
        assert_eq!(media(&part).mime_type, "application/octet-stream", "{url}");
        assert!(matches!(part, ContentPart::File(_)));
        assert_eq!(media(&part).name, None);
    }
    let empty = attach("data:text/plain,").unwrap();
    assert_eq!(data_of(&empty), "");
    assert_eq!(part_bytes(&empty), 0);
}

#[test]
fn data_url_options_override_mime_and_name() {
    let part = attach_with(
        "data:;base64,AAEC",
        AttachOptions {
            mime_type: Some("application/pdf".into()),
            name: Some("report.pdf".into()),
            max_part_bytes: None,
        },
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&part).unwrap(),
        r#"{"type":"file","mimeType":"application/pdf","data":"AAEC","name":"report.pdf"}"#
    );
}

// ---------------------------------------------------------------------------------------------
// Paths and URLs: mime inference, part types and names.

#[test]
fn fixed_extension_table_is_case_insensitive() {
    let dir = tempfile::tempdir().unwrap();
    let table = [
        ("a.png", "image/png", "image"),
        ("b.PNG", "image/png", "image"),
        ("c.jpg", "image/jpeg", "image"),
        ("d.JPG", "image/jpeg", "image"),
        ("e.jpeg", "image/jpeg", "image"),
        ("f.Jpeg", "image/jpeg", "image"),
        ("g.gif", "image/gif", "image"),
        ("h.webp", "image/webp", "image"),
        ("i.pdf", "application/pdf", "file"),
        ("j.PDF", "application/pdf", "file"),
        ("k.mp3", "audio/mpeg", "audio"),
        ("l.wav", "audio/wav", "audio"),
        ("m.WAV", "audio/wav", "audio"),
    ];
    for (name, mime, kind) in table {
        let path = file_in(dir.path(), name, b"\x00\x01\x02");
        let part = attach(str_path(&path)).unwrap();
        assert_eq!(media(&part).mime_type, mime, "{name}");
        assert_eq!(part.type_name(), kind, "{name}");
        assert_eq!(data_of(&part), "AAEC");
        let expected_name = (kind == "file").then(|| name.to_owned());
        assert_eq!(media(&part).name, expected_name, "{name}");

        let url = format!("https://cdn.example.com/media/{name}?v=2#top");
        let remote = attach(&url).unwrap();
        assert_eq!(media(&remote).mime_type, mime, "{url}");
        assert_eq!(media(&remote).source, Source::Url(url.clone()));
    }
}

#[test]
fn mime_guess_is_the_fallback() {
    let dir = tempfile::tempdir().unwrap();
    for (name, mime) in [
        ("data.csv", "text/csv"),
        ("DATA.CSV", "text/csv"),
        ("notes.txt", "text/plain"),
        ("page.html", "text/html"),
        ("doc.json", "application/json"),
    ] {
        let path = file_in(dir.path(), name, b"1,2");
        let part = attach(str_path(&path)).unwrap();
        assert_eq!(media(&part).mime_type, mime, "{name}");
        assert!(matches!(part, ContentPart::File(_)));
        assert_eq!(media(&part).name.as_deref(), Some(name));
    }
    let part = attach("https://example.com/export/data.csv").unwrap();
    assert_eq!(media(&part).mime_type, "text/csv");
    assert_eq!(media(&part).name.as_deref(), Some("data.csv"));
}

#[test]
fn options_override_mime_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = file_in(dir.path(), "blob.zzqx", b"abc");
    let part = attach_with(
        str_path(&unknown),
        AttachOptions {
            mime_type: Some("application/x-custom".into()),
            ..AttachOptions::default()
        },
    )
    .unwrap();
    assert_eq!(media(&part).mime_type, "application/x-custom");
    assert_eq!(media(&part).name.as_deref(), Some("blob.zzqx"));

    let renamed = attach_with(
        str_path(&unknown),
        AttachOptions {
            mime_type: Some("text/plain".into()),
            name: Some("notes.txt".into()),
            max_part_bytes: None,
        },
    )
    .unwrap();
    assert_eq!(media(&renamed).name.as_deref(), Some("notes.txt"));

    // The mime decides the part type, even against the extension.
    let as_audio = attach_with(
        fixture_png().to_string_lossy(),
        AttachOptions {
            mime_type: Some("audio/ogg".into()),
            name: Some("ignored.ogg".into()),
            max_part_bytes: None,
        },
    )
    .unwrap();
    assert!(matches!(as_audio, ContentPart::Audio(_)));
    assert_eq!(media(&as_audio).mime_type, "audio/ogg");
    assert_eq!(media(&as_audio).name, None, "only file parts keep a name");

    let image_named = attach_with(
        fixture_png().to_string_lossy(),
        AttachOptions {
            name: Some("shot.png".into()),
            ..AttachOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        media(&image_named).name,
        None,
        "only file parts keep a name"
    );

    let url = attach_with(
        "https://example.com/render",
        AttachOptions {
            mime_type: Some("image/webp".into()),
            ..AttachOptions::default()
        },
    )
    .unwrap();
    assert!(matches!(url, ContentPart::Image(_)));
}

#[test]
fn from_path_matches_attach_and_takes_a_path() {
    let via_attach = attach(fixture_png().to_string_lossy()).unwrap();
    let via_path = from_path(fixture_png(), AttachOptions::default()).unwrap();
    assert_eq!(via_attach, via_path);
    assert_eq!(data_of(&via_path), fixture_png_base64());
}

#[test]
fn mime_decides_the_part_type() {
    let bytes = b"\x00\x01\x02";
    for (mime, kind) in [
        ("image/png", "image"),
        ("image/svg+xml", "image"),
        ("IMAGE/JPEG", "image"),
        ("audio/mpeg", "audio"),
        ("audio/ogg", "audio"),
        ("application/pdf", "file"),
        ("text/csv", "file"),
        ("video/mp4", "file"),
        ("application/octet-stream", "file"),
    ] {
        let part = from_bytes(bytes, mime);
        assert_eq!(part.type_name(), kind, "{mime}");
        assert_eq!(media(&part).mime_type, mime);
        assert_eq!(media(&part).name, None);
        assert_eq!(data_of(&part), "AAEC");
    }
}

// ---------------------------------------------------------------------------------------------
// Wire forms.

#[test]
fn content_part_wire_forms_in_key_order() {
    let cases = [
        (ContentPart::text("hi"), r#"{"type":"text","text":"hi"}"#),
        (
            from_bytes(&[0, 1, 2], "image/png"),
            r#"{"type":"image","mimeType":"image/png","data":"AAEC"}"#,
        ),
        (
            attach("https://example.com/a.png").unwrap(),
            r#"{"type":"image","mimeType":"image/png","url":"https://example.com/a.png"}"#,
        ),
        (
            attach_with(
                "data:application/pdf;base64,AAEC",
                AttachOptions {
                    name: Some("report.pdf".into()),
                    ..AttachOptions::default()
                },
            )
            .unwrap(),
            r#"{"type":"file","mimeType":"application/pdf","data":"AAEC","name":"report.pdf"}"#,
        ),
        (
            attach("https://example.com/docs/report.pdf").unwrap(),
            r#"{"type":"file","mimeType":"application/pdf","url":"https://example.com/docs/report.pdf","name":"report.pdf"}"#,
        ),
        (
            from_bytes(&[0, 1, 2], "audio/wav"),
            r#"{"type":"audio","mimeType":"audio/wav","data":"AAEC"}"#,
        ),
    ];
    for (part, wire) in cases {
        assert_eq!(serde_json::to_string(&part).unwrap(), wire);
        let back: ContentPart = serde_json::from_str(wire).unwrap();
        assert_eq!(back, part, "round trip of {wire}");
    }
}

#[test]
fn content_part_deserializes_in_any_key_order_and_rejects_bad_shapes() {
    let part: ContentPart = serde_json::from_str(
        r#"{"name":"r.pdf","data":"AAEC","mimeType":"application/pdf","type":"file"}"#,
    )
    .unwrap();
    assert_eq!(
        part,
        ContentPart::File(Media {
            mime_type: "application/pdf".into(),
            source: Source::Data("AAEC".into()),
            name: Some("r.pdf".into()),
        })
    );
    for bad in [
        r#"{"type":"video","mimeType":"video/mp4","data":"AAEC"}"#,
        r#"{"type":"image","data":"AAEC"}"#,
        r#"{"type":"text"}"#,
        r#"{"mimeType":"image/png","data":"AAEC"}"#,
        r#""image""#,
    ] {
        assert!(serde_json::from_str::<ContentPart>(bad).is_err(), "{bad}");
    }
}

#[test]
fn part_bytes_counts_without_decoding() {
    assert_eq!(
        part_bytes(&attach(fixture_png().to_string_lossy()).unwrap()),
        82
    );
    assert_eq!(part_bytes(&from_bytes(&[7; 10], "image/png")), 10);
    assert_eq!(part_bytes(&attach("https://example.com/a.png").unwrap()), 0);
    assert_eq!(part_bytes(&ContentPart::text("héllo")), 6);
    assert_eq!(part_bytes(&ContentPart::text("")), 0);
}

#[test]
fn describe_part_is_the_cross_port_form() {
    assert_eq!(
        describe_part(&attach(fixture_png().to_string_lossy()).unwrap()),
        "image (image/png, 82 bytes)"
    );
    // A file is described by its type, not its name (byte-identical across ports).
    let named = attach_with(
        "data:application/pdf;base64,AAECAw==",
        AttachOptions {
            name: Some("report.pdf".into()),
            ..AttachOptions::default()
        },
    )
    .unwrap();
    assert_eq!(describe_part(&named), "file (application/pdf, 4 bytes)");
    assert_eq!(
        describe_part(&from_bytes(&[1, 2, 3], "audio/wav")),
        "audio (audio/wav, 3 bytes)"
    );
    assert_eq!(
        describe_part(&attach("https://example.com/a.png").unwrap()),
        "image (image/png, 0 bytes)"
    );
    assert_eq!(describe_part(&ContentPart::text("just text")), "just text");
}

#[test]
fn tool_result_wire_form() {
    assert_eq!(
        serde_json::to_string(&ToolResult::ok("3")).unwrap(),
        r#"{"output":"3","isError":false}"#
    );
    assert_eq!(
        serde_json::to_string(&ToolResult::error("no")).unwrap(),
        r#"{"output":"no","isError":true}"#
    );
    let full = ToolResult::ok("chart")
        .with_part(from_bytes(&[0, 1, 2], "image/png"))
        .with_parts([ContentPart::text("caption")])
        .with_metadata("rows", 2)
        .with_metadata("source", "db");
    let wire = r#"{"output":"chart","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AAEC"},{"type":"text","text":"caption"}],"metadata":{"rows":2,"source":"db"}}"#;
    assert_eq!(serde_json::to_string(&full).unwrap(), wire);
    assert_eq!(serde_json::from_str::<ToolResult>(wire).unwrap(), full);

    let minimal: ToolResult = serde_json::from_str(r#"{"output":"x"}"#).unwrap();
    assert_eq!(minimal, ToolResult::ok("x"));
    // with_metadata replaces an earlier value under the same key.
    let replaced = ToolResult::ok("")
        .with_metadata("k", 1)
        .with_metadata("k", 2);
    assert_eq!(replaced.metadata["k"], 2);
}

#[test]
fn request_answer_and_reason_wire_keys() {
    let mut data = Map::new();
    data.insert("env".into(), json!("prod"));
    let full = Request::new("approval", "Deploy?")
        .with_id("pnd-1")
        .with_url("https://ci/approve")
        .with_data(data.clone())
        .with_expires_at("2030-01-01T00:00:00Z");
    let wire = r#"{"id":"pnd-1","kind":"approval","prompt":"Deploy?","url":"https://ci/approve","data":{"env":"prod"},"expiresAt":"2030-01-01T00:00:00Z"}"#;
    assert_eq!(serde_json::to_string(&full).unwrap(), wire);
    assert_eq!(serde_json::from_str::<Request>(wire).unwrap(), full);

    let minimal = Request::new("input", "Which?").with_id("x");
    assert_eq!(
        serde_json::to_string(&minimal).unwrap(),
        r#"{"id":"x","kind":"input","prompt":"Which?"}"#
    );

    let answer = Answer {
        id: "pnd-1".into(),
        ok: true,
        data: Some(data),
        reason: None,
    };
    let wire = r#"{"id":"pnd-1","ok":true,"data":{"env":"prod"}}"#;
    assert_eq!(serde_json::to_string(&answer).unwrap(), wire);
    assert_eq!(serde_json::from_str::<Answer>(wire).unwrap(), answer);

    let declined = Answer {
        id: "pnd-1".into(),
        ok: false,
        data: None,
        reason: Some(Reason::Declined),
    };
    assert_eq!(
        serde_json::to_string(&declined).unwrap(),
        r#"{"id":"pnd-1","ok":false,"reason":"declined"}"#
    );
    for (reason, text) in [
        (Reason::Declined, "\"declined\""),
        (Reason::Cancelled, "\"cancelled\""),
        (Reason::Expired, "\"expired\""),
    ] {
        assert_eq!(serde_json::to_string(&reason).unwrap(), text);
        assert_eq!(serde_json::from_str::<Reason>(text).unwrap(), reason);
    }
}

/// `^pnd-[0-9a-z]+-[0-9]+$`, without a regex dependency.
fn is_request_id(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("pnd-") else {
        return false;
    };
    let Some((millis, counter)) = rest.split_once('-') else {
        return false;
    };
    !millis.is_empty()
        && millis
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        && !counter.is_empty()
        && counter.bytes().all(|b| b.is_ascii_digit())
}

#[test]
fn request_ids_are_unique_across_threads() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 1000;
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            std::thread::spawn(|| {
                (0..PER_THREAD)
                    .map(|_| Request::new("input", "?").id)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut seen = HashSet::new();
    for handle in handles {
        for id in handle.join().unwrap() {
            assert!(is_request_id(&id), "{id}");
            assert!(seen.insert(id.clone()), "duplicate id {id}");
        }
    }
    assert_eq!(seen.len(), THREADS * PER_THREAD);
    assert!(!is_request_id("pnd-ABC-1") && !is_request_id("pnd-abc-") && !is_request_id("x-1-2"));
}

// ---------------------------------------------------------------------------------------------
// Lowering: every row of SPEC §4, through `IntoToolResult` directly.

fn ok(output: &str) -> ToolResult {
    ToolResult::ok(output)
}

#[test]
fn text_lowers_to_itself() {
    assert_eq!(String::from("hi").into_tool_result(), ok("hi"));
    assert_eq!("hi".into_tool_result(), ok("hi"));
    assert_eq!(Cow::Borrowed("b").into_tool_result(), ok("b"));
    assert_eq!(Cow::<str>::Owned("o".into()).into_tool_result(), ok("o"));
    assert_eq!('λ'.into_tool_result(), ok("λ"));
    assert_eq!(String::new().into_tool_result(), ok(""));
}

#[test]
fn numbers_and_bools_lower_with_to_string() {
    assert_eq!((-5i8).into_tool_result(), ok("-5"));
    assert_eq!(300i16.into_tool_result(), ok("300"));
    assert_eq!(7i32.into_tool_result(), ok("7"));
    assert_eq!(i64::MIN.into_tool_result(), ok("-9223372036854775808"));
    assert_eq!(i128::MAX.into_tool_result(), ok(&i128::MAX.to_string()));
    assert_eq!((-1isize).into_tool_result(), ok("-1"));
    assert_eq!(255u8.into_tool_result(), ok("255"));
    assert_eq!(65535u16.into_tool_result(), ok("65535"));
    assert_eq!(3u32.into_tool_result(), ok("3"));
    assert_eq!(u64::MAX.into_tool_result(), ok("18446744073709551615"));
    assert_eq!(u128::MAX.into_tool_result(), ok(&u128::MAX.to_string()));
    assert_eq!(42usize.into_tool_result(), ok("42"));
    assert_eq!(1.5f64.into_tool_result(), ok("1.5"));
    assert_eq!(0.1f32.into_tool_result(), ok("0.1"));
    assert_eq!(2.0f64.into_tool_result(), ok("2"));
    assert_eq!(f64::NAN.into_tool_result(), ok("NaN"));
    assert_eq!(true.into_tool_result(), ok("true"));
    assert_eq!(false.into_tool_result(), ok("false"));
}

#[test]
fn unit_lowers_to_empty_output() {
    assert_eq!(().into_tool_result(), ok(""));
}

#[derive(Serialize)]
struct Summary {
    city: &'static str,
    temps: Vec<i32>,
    note: Option<&'static str>,
}

#[test]
fn json_lowers_to_compact_json() {
    let summary = Summary {
        city: "Paris",
        temps: vec![12, 14],
        note: None,
    };
    assert_eq!(
        Json(summary).into_tool_result(),
        ok(r#"{"city":"Paris","temps":[12,14],"note":null}"#)
    );
    assert_eq!(Json(vec![1, 2, 3]).into_tool_result(), ok("[1,2,3]"));
    assert_eq!(Json("text").into_tool_result(), ok(r#""text""#));
}

#[test]
fn json_serialization_failure_is_an_error_with_the_serde_message() {
    let mut map = BTreeMap::new();
    map.insert((1u8, 2u8), "pair");
    let serde_message = serde_json::to_string(&map).unwrap_err().to_string();
    let result = Json(map).into_tool_result();
    assert!(result.is_error);
    assert!(
        result.output.contains(&serde_message),
        "{} should contain {serde_message}",
        result.output
    );
    assert!(result.parts.is_empty() && result.metadata.is_empty());
}

#[test]
fn values_lower_to_text_or_compact_json() {
    assert_eq!(json!("plain").into_tool_result(), ok("plain"));
    assert_eq!(json!(42).into_tool_result(), ok("42"));
    assert_eq!(json!(null).into_tool_result(), ok("null"));
    assert_eq!(json!(true).into_tool_result(), ok("true"));
    assert_eq!(json!([1, "a"]).into_tool_result(), ok(r#"[1,"a"]"#));
    assert_eq!(
        json!({"b": 1, "a": {"c": [null]}}).into_tool_result(),
        ok(r#"{"b":1,"a":{"c":[null]}}"#)
    );
}

#[test]
fn tool_results_pass_through_unchanged() {
    let rich = ToolResult::error("nope")
        .with_part(ContentPart::text("detail"))
        .with_metadata("code", 7);
    assert_eq!(rich.clone().into_tool_result(), rich);
}

#[test]
fn content_parts_lower_to_their_description() {
    let png = attach(fixture_png().to_string_lossy()).unwrap();
    let result = png.clone().into_tool_result();
    assert_eq!(result.output, "image (image/png, 82 bytes)");
    assert!(!result.is_error);
    assert_eq!(result.parts, vec![png.clone()]);
    assert!(result.metadata.is_empty());

    let csv = from_bytes(b"a,b", "text/csv");
    let result = vec![png.clone(), csv.clone()].into_tool_result();
    assert_eq!(
        result.output,
        "image (image/png, 82 bytes)\nfile (text/csv, 3 bytes)"
    );
    assert_eq!(result.parts, vec![png, csv]);
    assert!(!result.is_error);

    assert_eq!(Vec::<ContentPart>::new().into_tool_result(), ok(""));
}

#[test]
fn requests_lower_to_a_suspension() {
    let request = Request::new("approval", "Ship it?").with_url("https://ci/approve");
    let result = request.clone().into_tool_result();
    assert!(result.is_error);
    assert!(result.is_pending());
    assert_eq!(result.output, "Ship it?\nhttps://ci/approve");
    assert!(result.parts.is_empty());
    assert_eq!(result.metadata.len(), 1);
    assert_eq!(
        result.metadata["pending"],
        serde_json::to_value(&request).unwrap()
    );
    assert_eq!(pending_of(&result), Some(request));
}

#[test]
fn options_lower_none_to_empty_and_some_to_the_value() {
    assert_eq!(None::<String>.into_tool_result(), ok(""));
    assert_eq!(Some(5u8).into_tool_result(), ok("5"));
    assert_eq!(Some(Json([1])).into_tool_result(), ok("[1]"));
    assert!(
        Some(Request::new("input", "?"))
            .into_tool_result()
            .is_pending()
    );
    assert_eq!(None::<Request>.into_tool_result(), ok(""));
}

#[derive(Debug, thiserror::Error)]
enum WeatherError {
    #[error("no such city: {0}")]
    UnknownCity(String),
    #[error("weather service unavailable")]
    Unavailable(#[source] std::io::Error),
}

#[test]
fn results_lower_ok_and_err() {
    assert_eq!(Ok::<_, String>(3).into_tool_result(), ok("3"));
    assert_eq!(
        Ok::<_, std::io::Error>(Json(vec!["a"])).into_tool_result(),
        ok(r#"["a"]"#)
    );

    let io = Err::<(), _>(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "config.toml not found",
    ));
    assert_eq!(
        io.into_tool_result(),
        ToolResult::error("config.toml not found")
    );

    let anyhow = Err::<String, _>(anyhow::anyhow!("file missing").context("reading config"));
    assert_eq!(
        anyhow.into_tool_result(),
        ToolResult::error("reading config: file missing")
    );

    let boxed: Result<u8, Box<dyn std::error::Error>> = Err("boxed failure".into());
    assert_eq!(boxed.into_tool_result(), ToolResult::error("boxed failure"));
    let boxed: Result<u8, Box<dyn std::error::Error + Send + Sync>> = Err("sendable".into());
    assert_eq!(boxed.into_tool_result(), ToolResult::error("sendable"));

    let text = Err::<u8, _>(String::from("plain string error"));
    assert_eq!(
        text.into_tool_result(),
        ToolResult::error("plain string error")
    );

    let typed = Err::<u8, _>(WeatherError::UnknownCity("Atlantis".into()));
    assert_eq!(
        typed.into_tool_result(),
        ToolResult::error("no such city: Atlantis")
    );
    let typed = Err::<u8, _>(WeatherError::Unavailable(std::io::Error::other("timeout")));
    assert_eq!(
        typed.into_tool_result(),
        ToolResult::error("weather service unavailable")
    );

    // A content part error lowers like any other error.
    let missing = attach("/definitely/not/here.png").into_tool_result();
    assert!(missing.is_error);
    assert!(missing.output.contains("/definitely/not/here.png"));
}

#[test]
fn err_tool_result_passes_through_and_err_request_suspends() {
    let custom = ToolResult::error("quota exceeded").with_metadata("retry_after", 30);
    assert_eq!(Err::<String, _>(custom.clone()).into_tool_result(), custom);
    // Unchanged means unchanged, even a non-error result.
    let odd = ToolResult::ok("fine after all");
    assert_eq!(Err::<String, _>(odd.clone()).into_tool_result(), odd);

    let request = Request::new("approval", "Approve?");
    let result = Err::<String, _>(request.clone()).into_tool_result();
    assert!(result.is_error && result.is_pending());
    assert_eq!(pending_of(&result), Some(request));
}

#[test]
fn nested_options_and_results_compose() {
    let value: Result<Option<Vec<ContentPart>>, anyhow::Error> =
        Ok(Some(vec![ContentPart::text("a"), ContentPart::text("b")]));
    let result = value.into_tool_result();
    assert_eq!(result.output, "a\nb");
    assert_eq!(result.parts.len(), 2);

    let value: Option<Result<u8, String>> = Some(Err("inner".into()));
    assert_eq!(value.into_tool_result(), ToolResult::error("inner"));
}
