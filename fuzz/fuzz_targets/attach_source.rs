//! `attach` on arbitrary text, data: URLs above all: it may refuse, it must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolnexus::parts::{AttachOptions, attach_with};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Keep the fuzzer off the filesystem: only data: URLs and remote URLs are interesting here.
    for source in [format!("data:{text}"), format!("https://{text}")] {
        let opts = AttachOptions { max_part_bytes: Some(1 << 16), ..AttachOptions::default() };
        if let Ok(part) = attach_with(&source, opts) {
            let _ = toolnexus::parts::describe_part(&part);
            let _ = toolnexus::parts::part_bytes(&part);
        }
    }
});
