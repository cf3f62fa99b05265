//! Content parts (SPEC §2): making them from bytes, paths, URLs and `data:` URLs, and every
//! error code, exercised through the public API only. Their wire forms are in
//! `json_forms.rs`, the lowering table in `lowering.rs`.

use crate::common;

use std::collections::HashSet;
use std::error::Error as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use toolnexus::parts::{AttachOptions, Media, Source};
use toolnexus::{
    ContentPart,
    parts::{
        ContentPartError, attach, attach_with, describe_part, from_bytes, from_path, part_bytes,
    },
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
