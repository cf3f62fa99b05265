//! Routes 2025-11-25's core tasks past rmcp: rmcp reads `tasks/get` and `tasks/cancel` as the
//! 2026-07-28 extension's, drops a `tools/call`'s `task` and cannot list a tool's `execution`,
//! so a request of an older session that needs them reaches the server renamed, as a custom
//! one (served by `tasks::core_methods`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Head, Screened};

/// The prefix of the custom methods a 2025-11-25 core-tasks request reaches the server as.
pub(crate) const CORE_TASKS: &str = "io.toolnexus/2025-11-25/";

/// The `_meta` key every 2026-07-28 request carries: a request without it is from an older
/// session.
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Whether `params` carry 2026-07-28's `protocolVersion` in their `_meta`.
pub(super) fn is_2026(params: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow, rename = "_meta")]
        meta: Option<BTreeMap<&'a str, &'a RawValue>>,
    }
    params
        .and_then(|params| serde_json::from_str::<Params<'_>>(params.get()).ok())
        .and_then(|params| params.meta)
        .is_some_and(|meta| meta.contains_key(PROTOCOL_VERSION))
}

/// The request `bytes` (read as `head`) under its [`CORE_TASKS`] method.
pub(super) fn core_tasks(mut head: Head, bytes: &[u8]) -> Screened {
    let Some(method) = head
        .method
        .as_deref()
        .map(|method| format!("{CORE_TASKS}{method}"))
    else {
        return Screened::Pass(head);
    };
    let Ok(mut message) = serde_json::from_slice::<BTreeMap<String, Box<RawValue>>>(bytes) else {
        return Screened::Pass(head);
    };
    match serde_json::value::to_raw_value(&method) {
        Ok(renamed) => message.insert("method".to_owned(), renamed),
        Err(_) => return Screened::Pass(head),
    };
    head.method = Some(method);
    match serde_json::to_vec(&message) {
        Ok(text) => Screened::Rewritten(head, text),
        Err(_) => Screened::Pass(head),
    }
}
