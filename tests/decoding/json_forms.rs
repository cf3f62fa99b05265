//! The JSON wire forms of the core types (SPEC §1, §3): content parts, tool results, requests,
//! answers and reasons, byte for byte, through the public API only.

use crate::common;

use std::collections::HashSet;

use serde_json::{Map, json};
use toolnexus::parts::{AttachOptions, Media, Source};
use toolnexus::{
    Answer, ContentPart, Reason, Request, ToolResult,
    parts::{attach, attach_with, describe_part, from_bytes, part_bytes},
};

use common::fixture_png;

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
