//! Limits a dialect cannot say but the tool enforces: each is taken out of the schema and
//! written into that property's `description` in words ("at most 5 characters"), so the model
//! is still told, and a call that breaks it is refused with a message it can act on
//! (SPEC §11).

use serde_json::{Map, Value};

use super::loss::Loss;

/// Why a described limit is reported.
const WHY_DESCRIBED: &str = "it has no such keyword, so the limit is written into the \
     description instead, and the tool refuses a value that breaks it";

/// The limits among `keywords` that `map` carries, in words, and the loss naming them;
/// `None` when it carries none.
pub(crate) fn described(
    map: &Map<String, Value>,
    keywords: &[&str],
    path: &str,
) -> Option<(Vec<String>, Loss)> {
    // A `char` is a string of exactly one character: said once, not as two limits.
    let exact_length = map
        .get("minLength")
        .filter(|n| map.get("maxLength") == Some(*n));
    let mut taken = Vec::new();
    let mut words = Vec::new();
    for key in keywords {
        let Some(value) = map.get(*key) else {
            continue;
        };
        let said = match (exact_length, *key) {
            (Some(n), "minLength") => Some(format!("exactly {}", count(n, "character"))),
            (Some(_), "maxLength") => None,
            _ => in_words(key, value),
        };
        words.extend(said);
        taken.push(format!("`{key}: {value}`"));
    }
    if taken.is_empty() {
        return None;
    }
    Some((
        words,
        Loss::described(path, taken.join(", "), WHY_DESCRIBED),
    ))
}

/// A description with `words` added: `City name (at most 5 characters)`, or the words alone;
/// `None` when there are no words to add.
pub(crate) fn with_words(description: Option<&Value>, words: &[String]) -> Option<Value> {
    if words.is_empty() {
        return None;
    }
    let words = words.join("; ");
    Some(Value::String(match description.and_then(Value::as_str) {
        Some(own) if !own.is_empty() => format!("{own} ({words})"),
        _ => words,
    }))
}

/// `1 character`, `5 characters`.
fn count(n: &Value, noun: &str) -> String {
    let plural = match noun {
        "entry" => "entries",
        "character" => "characters",
        _ => "items",
    };
    format!("{n} {}", if n.as_u64() == Some(1) { noun } else { plural })
}

/// One limit in words; `None` for a keyword that limits nothing (`uniqueItems: false`).
pub(crate) fn in_words(key: &str, value: &Value) -> Option<String> {
    Some(match key {
        "minLength" => format!("at least {}", count(value, "character")),
        "maxLength" => format!("at most {}", count(value, "character")),
        "minItems" => format!("at least {}", count(value, "item")),
        "maxItems" => format!("at most {}", count(value, "item")),
        "minProperties" => format!("at least {}", count(value, "entry")),
        "maxProperties" => format!("at most {}", count(value, "entry")),
        "minimum" => format!("at least {value}"),
        "maximum" => format!("at most {value}"),
        "exclusiveMinimum" => format!("greater than {value}"),
        "exclusiveMaximum" => format!("less than {value}"),
        "multipleOf" => format!("a multiple of {value}"),
        "pattern" => format!("matches the pattern {}", value.as_str()?),
        "format" => format!("in the `{}` format", value.as_str()?),
        "uniqueItems" if value == &Value::Bool(true) => "no duplicate items".to_owned(),
        "enum" => match value {
            Value::Array(values) => {
                let values: Vec<String> = values.iter().map(Value::to_string).collect();
                format!("one of {}", values.join(", "))
            }
            _ => return None,
        },
        "const" => format!("exactly {value}"),
        _ => return None,
    })
}
