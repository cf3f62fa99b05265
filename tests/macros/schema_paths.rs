//! The two ways `#[tool]` builds an input schema give the same schema: from a list of the
//! parameters at run time (`tool_schema_of_params`, a tool whose parameters carry no
//! attribute schemars reads) and from a schema struct deriving `JsonSchema` (a tool with a
//! forwarded `#[serde]`/`#[schemars]` attribute). Each pair below is one signature written
//! both ways: the second adds `#[serde(alias = "…")]`, which changes no schema but takes the
//! derive.

// The same alias on every parameter of a derived tool leaves serde's later arms unreachable;
// only the schema is compared here.
#![allow(unreachable_patterns)]

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use toolnexus::{JsonSchema, tool};

use crate::common::Unit;

/// A node with children of its own type.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // decoded, never read: only its schema matters
struct Tree {
    /// The node's label
    label: String,
    children: Vec<Tree>,
}

/// Where to look.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // decoded, never read: only its schema matters
struct Window {
    min: f64,
    max: Option<f64>,
    unit: Unit,
}

macro_rules! both_ways {
    ($($listed:ident / $derived:ident ($($(#[doc = $doc:literal])* $(#[param($($param:tt)*)])? $name:ident: $ty:ty),*);)*) => {
        $(
            /// Listed.
            #[tool]
            #[allow(unused_variables)]
            fn $listed($($(#[doc = $doc])* $(#[param($($param)*)])? $name: $ty),*) -> i64 {
                0
            }

            /// Derived.
            #[tool]
            #[allow(unused_variables)]
            fn $derived($($(#[doc = $doc])* $(#[param($($param)*)])? #[serde(alias = "other")] $name: $ty),*) -> i64 {
                0
            }
        )*

        fn pairs() -> Vec<(&'static str, Value, Value)> {
            vec![$((
                stringify!($listed),
                Value::Object(toolnexus::tools![$listed][0].input_schema().clone()),
                Value::Object(toolnexus::tools![$derived][0].input_schema().clone()),
            )),*]
        }
    };
}

both_ways! {
    integers / integers_derived(
        /// The first addend
        a: i64,
        /// The second addend
        b: u8
    );
    scalars / scalars_derived(x: f64, flag: bool, text: String, ch: char);
    borrowed / borrowed_derived(
        /// Borrowed text
        text: &str,
        items: &[u32],
        note: Option<&str>
    );
    optional / optional_derived(
        /// Maybe a number
        count: Option<u32>,
        unit: Option<Unit>,
        name: Option<String>
    );
    collections / collections_derived(tags: Vec<String>, scores: HashMap<String, i64>, pair: (u8, String));
    structs / structs_derived(
        /// The window to search
        window: Window,
        tree: Tree,
        maybe: Option<Window>
    );
    renamed / renamed_derived(
        /// Renamed on the wire
        #[param(rename = "kind")]
        r#type: String,
        #[param(description = "From the attribute")]
        level: u16
    );
    wide / wide_derived(big: i128, huge: u128, small: i8);
}

/// No parameters: the listed path's only case without a property.
#[tool]
fn nothing() -> i64 {
    0
}

#[test]
fn a_listed_schema_is_the_derived_one() {
    for (name, listed, derived) in pairs() {
        assert_eq!(listed, derived, "{name}");
    }
}

#[test]
fn a_tool_without_parameters_has_an_empty_closed_object() {
    let schema = Value::Object(toolnexus::tools![nothing][0].input_schema().clone());
    assert_eq!(
        schema,
        serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}
