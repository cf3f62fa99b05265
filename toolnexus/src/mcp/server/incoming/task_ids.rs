//! The tasks extension's `taskIds` on `subscriptions/listen`, carried past rmcp: its
//! subscription filter has no field for them, so they travel in the request's `_meta`.

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Head, INVALID_PARAMS, Screened, error};

/// The `_meta` key the task ids of a `subscriptions/listen` reach the server under.
pub(crate) const TASK_IDS: &str = "io.toolnexus/taskIds";

/// The `subscriptions/listen` `head` with `params`: as it is when it names no task, else with
/// `notifications.taskIds` moved to `_meta` (and kept in `head`); `-32602` for task ids that
/// are not strings, or for the server's own key sent by the client.
pub(super) fn listened(mut head: Head, params: Option<&RawValue>) -> Screened {
    let refused = |head: Head, detail: &str| {
        Screened::Refused(error(
            head.id,
            INVALID_PARAMS,
            format_args!("Invalid params: {detail}"),
        ))
    };
    let Some(Ok(mut params)) =
        params.map(|params| serde_json::from_str::<Map<String, Value>>(params.get()))
    else {
        return Screened::Pass(head);
    };
    let mut meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => meta,
        _ => Map::new(),
    };
    if meta.contains_key(TASK_IDS) {
        return refused(head, &format!("`_meta` key `{TASK_IDS}` is reserved"));
    }
    let Some(ids) = params
        .get_mut("notifications")
        .and_then(Value::as_object_mut)
        .and_then(|filter| filter.remove("taskIds"))
    else {
        return Screened::Pass(head);
    };
    let Ok(ids) = serde_json::from_value::<Vec<String>>(ids) else {
        return refused(
            head,
            "`notifications.taskIds` must be an array of task ids (strings)",
        );
    };
    meta.insert(TASK_IDS.to_owned(), Value::from(ids.clone()));
    params.insert("_meta".to_owned(), Value::Object(meta));
    let mut message = BTreeMap::new();
    message.insert("jsonrpc", Value::from("2.0"));
    message.insert("id", head.id.clone().unwrap_or(Value::Null));
    message.insert("method", Value::from("subscriptions/listen"));
    message.insert("params", Value::Object(params));
    head.task_ids = Some(ids);
    match serde_json::to_vec(&message) {
        Ok(text) => Screened::Rewritten(head, text),
        Err(_) => Screened::Pass(head),
    }
}

/// `message`, an acknowledgment of a `subscriptions/listen`, naming `ids` among the
/// notifications it agreed to send.
pub(crate) fn acknowledged(message: &mut Value, ids: &[String]) {
    if let Some(notifications) = message
        .get_mut("params")
        .and_then(|params| params.get_mut("notifications"))
        .and_then(Value::as_object_mut)
    {
        notifications.insert("taskIds".to_owned(), Value::from(ids.to_vec()));
    }
}
