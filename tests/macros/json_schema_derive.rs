//! `toolnexus::JsonSchema` yields exactly the schema schemars' own derive yields (SPEC §0).
//!
//! `types!` declares the same types twice: in `ours`, where the only derive in scope is
//! `toolnexus::JsonSchema` (no `use schemars`, no schemars path at all), and in `theirs`,
//! with schemars' own derive. Same names, same attributes, so the schemas must be equal,
//! titles and `$defs` included.

use schemars::{JsonSchema, schema_for};
use serde_json::Value;

macro_rules! types {
    () => {
        use serde::{Deserialize, Serialize};

        /// A search filter.
        ///
        /// Second paragraph of the description.
        #[derive(Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct Filter {
            /// Words to look for
            pub query: String,
            /// Maximum hits
            #[serde(default)]
            pub max_results: u32,
            #[serde(rename = "lang")]
            pub language: Option<String>,
            #[schemars(range(min = 1, max = 10), description = "Page number")]
            pub page: u8,
            #[serde(skip)]
            pub cache_key: u64,
            #[deprecated]
            pub legacy: Option<bool>,
        }

        /// Temperature unit.
        #[derive(Deserialize, JsonSchema)]
        #[serde(rename_all = "lowercase")]
        pub enum Unit {
            /// Degrees Celsius
            Celsius,
            Fahrenheit,
            #[serde(rename = "K")]
            Kelvin,
        }

        #[derive(Deserialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum Shape {
            /// A circle.
            Circle {
                radius: f64,
            },
            Rectangle {
                width: f64,
                height: f64,
            },
            Point,
        }

        #[derive(Deserialize, JsonSchema)]
        #[serde(tag = "t", content = "c")]
        pub enum Adjacent {
            Text(String),
            Pair(u8, u8),
        }

        #[derive(Deserialize, JsonSchema)]
        #[serde(untagged)]
        pub enum Untagged {
            Number(i64),
            Words { words: Vec<String> },
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Forecast {
            pub unit: Unit,
            pub filter: Filter,
            pub shapes: Vec<Shape>,
            pub days: Option<Vec<Day>>,
        }

        /// One day of a forecast.
        #[derive(Deserialize, JsonSchema)]
        pub struct Day(pub u16, pub f32);

        #[derive(Deserialize, JsonSchema)]
        pub struct Page<T> {
            pub items: Vec<T>,
            pub next: Option<String>,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Pages {
            pub days: Page<Day>,
            pub numbers: Page<u32>,
            pub words: Page<String>,
        }

        /// Defaults come from the container's `Default`.
        #[derive(Deserialize, Serialize, JsonSchema)]
        #[serde(default)]
        pub struct Settings {
            pub retries: u32,
            pub verbose: bool,
            pub label: String,
        }

        impl Default for Settings {
            fn default() -> Self {
                Self {
                    retries: 3,
                    verbose: true,
                    label: "main".to_owned(),
                }
            }
        }

        #[derive(Deserialize, Serialize, JsonSchema, Default)]
        #[serde(default)]
        pub struct GenericSettings<T: Default> {
            pub value: T,
            pub count: u8,
        }

        fn default_limits() -> Limits {
            Limits { soft: 10, hard: 20 }
        }

        #[derive(Deserialize, Serialize, JsonSchema)]
        #[serde(default = "default_limits")]
        pub struct Limits {
            pub soft: u32,
            pub hard: u32,
        }

        #[derive(Deserialize, JsonSchema)]
        #[serde(rename = "RenamedOnTheWire")]
        pub struct Renamed {
            pub a: bool,
        }

        #[derive(Deserialize, JsonSchema)]
        #[schemars(rename = "Boxed{T}")]
        pub struct Boxed<T> {
            pub inner: T,
        }

        /// A tree of labels.
        #[derive(Deserialize, JsonSchema)]
        pub struct Tree {
            pub label: String,
            pub children: Vec<Tree>,
            pub parent: Option<Box<Self>>,
        }

        #[derive(Deserialize, JsonSchema)]
        #[serde(transparent)]
        pub struct MaybeCount(pub Option<u32>);

        #[derive(Deserialize, JsonSchema)]
        pub struct UsesTransparent {
            pub count: MaybeCount,
            pub name: String,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Borrowed<'a> {
            pub name: &'a str,
        }

        /// Same shape as `TwinB`: the two must not share a schema id.
        #[derive(Deserialize, JsonSchema)]
        pub struct TwinA {
            pub x: i32,
        }

        /// Same shape as `TwinA`.
        #[derive(Deserialize, JsonSchema)]
        pub struct TwinB {
            pub x: i32,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Twins {
            pub a: TwinA,
            pub b: TwinB,
        }

        #[derive(Deserialize, JsonSchema)]
        #[schemars(inline)]
        pub struct Inlined {
            pub z: bool,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct UsesInlined {
            pub inlined: Inlined,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Flattened {
            pub id: u32,
            #[serde(flatten)]
            pub settings: Settings,
        }

        #[derive(Deserialize, JsonSchema)]
        pub enum Discriminated {
            A = 1,
            B = 2,
        }

        #[derive(Deserialize, JsonSchema)]
        pub struct Unit_;

        #[derive(Deserialize, JsonSchema)]
        #[allow(non_camel_case_types)]
        pub struct r#type {
            pub r#match: String,
        }
    };
}

/// Derived with `toolnexus::JsonSchema` only: no schemars path is in scope here.
#[allow(dead_code, deprecated)]
mod ours {
    use toolnexus::JsonSchema;
    types!();
}

/// Derived with schemars' own derive.
#[allow(dead_code, deprecated)]
mod theirs {
    use schemars::JsonSchema;
    types!();
}

fn same<A: JsonSchema, B: JsonSchema>() -> Value {
    let ours = schema_for!(A).to_value();
    let theirs = schema_for!(B).to_value();
    assert_eq!(
        ours,
        theirs,
        "toolnexus::JsonSchema differs from schemars for {}",
        B::schema_name()
    );
    assert_eq!(A::schema_name(), B::schema_name());
    assert_eq!(A::inline_schema(), B::inline_schema());
    assert_eq!(
        A::schema_id().replace("::ours::", "::theirs::"),
        B::schema_id(),
        "schema ids differ only by module"
    );
    ours
}

#[test]
fn documented_struct_with_renames_defaults_and_options() {
    let schema = same::<ours::Filter, theirs::Filter>();
    assert_eq!(schema["title"], "Filter");
    assert_eq!(
        schema["description"],
        "A search filter.\n\nSecond paragraph of the description."
    );
    assert_eq!(schema["properties"]["maxResults"]["default"], 0);
    assert!(schema["properties"].get("lang").is_some());
    assert_eq!(schema["properties"]["legacy"]["deprecated"], true);
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn enums_unit_tagged_adjacent_untagged() {
    let unit = same::<ours::Unit, theirs::Unit>();
    assert!(unit.to_string().contains("\"K\""));
    same::<ours::Shape, theirs::Shape>();
    same::<ours::Adjacent, theirs::Adjacent>();
    same::<ours::Untagged, theirs::Untagged>();
    same::<ours::Discriminated, theirs::Discriminated>();
}

#[test]
fn nested_types_land_in_defs_under_their_own_names() {
    let schema = same::<ours::Forecast, theirs::Forecast>();
    let defs = schema["$defs"].as_object().expect("nested types are $defs");
    for name in ["Unit", "Filter", "Shape", "Day"] {
        assert!(defs.contains_key(name), "missing $defs/{name}");
    }
}

#[test]
fn generic_structs() {
    same::<ours::Page<ours::Day>, theirs::Page<theirs::Day>>();
    same::<ours::Page<String>, theirs::Page<String>>();
    same::<ours::Pages, theirs::Pages>();
    same::<ours::Boxed<u8>, theirs::Boxed<u8>>();
    assert_eq!(
        <ours::Boxed<bool> as JsonSchema>::schema_name(),
        "Boxedboolean"
    );
    assert_ne!(
        <ours::Page<u32> as JsonSchema>::schema_id(),
        <ours::Page<String> as JsonSchema>::schema_id()
    );
}

#[test]
fn container_defaults_come_from_the_original_type() {
    let schema = same::<ours::Settings, theirs::Settings>();
    assert_eq!(schema["properties"]["retries"]["default"], 3);
    assert_eq!(schema["properties"]["label"]["default"], "main");
    same::<ours::GenericSettings<String>, theirs::GenericSettings<String>>();
    let limits = same::<ours::Limits, theirs::Limits>();
    assert_eq!(limits["properties"]["hard"]["default"], 20);
    same::<ours::Flattened, theirs::Flattened>();
}

#[test]
fn renamed_recursive_transparent_borrowed_inline_and_raw() {
    let renamed = same::<ours::Renamed, theirs::Renamed>();
    assert_eq!(renamed["title"], "RenamedOnTheWire");
    let tree = same::<ours::Tree, theirs::Tree>();
    assert!(tree.to_string().contains("#/$defs/Tree") || tree.to_string().contains("\"$ref\""));
    let transparent = same::<ours::UsesTransparent, theirs::UsesTransparent>();
    assert_eq!(transparent["required"], serde_json::json!(["name"]));
    same::<ours::Borrowed<'static>, theirs::Borrowed<'static>>();
    same::<ours::UsesInlined, theirs::UsesInlined>();
    same::<ours::Unit_, theirs::Unit_>();
    let raw = same::<ours::r#type, theirs::r#type>();
    assert_eq!(raw["title"], "type");
}

#[test]
fn same_shaped_types_never_share_a_schema_id() {
    assert_ne!(
        <ours::TwinA as JsonSchema>::schema_id(),
        <ours::TwinB as JsonSchema>::schema_id()
    );
    let schema = same::<ours::Twins, theirs::Twins>();
    let defs = schema["$defs"].as_object().expect("twins are $defs");
    assert!(defs.contains_key("TwinA") && defs.contains_key("TwinB"));
    assert_eq!(
        <ours::TwinA as JsonSchema>::schema_id(),
        "macros::json_schema_derive::ours::TwinA"
    );
}

#[test]
fn a_tool_input_schema_sees_the_same_types() {
    let ours = toolnexus::__private::input_schema_for::<ours::Forecast>();
    let theirs = toolnexus::__private::input_schema_for::<theirs::Forecast>();
    assert_eq!(ours, theirs);
}

/// `use toolnexus::JsonSchema;` brings the trait too, so bounds need no schemars path.
#[allow(dead_code)]
mod trait_through_toolnexus {
    use toolnexus::JsonSchema;

    #[derive(serde::Deserialize, JsonSchema)]
    pub struct Wrapper<T> {
        pub value: T,
    }

    pub fn name_of<T: JsonSchema>() -> String {
        T::schema_name().into_owned()
    }
}

#[test]
fn the_trait_is_reachable_as_toolnexus_json_schema() {
    assert_eq!(
        trait_through_toolnexus::name_of::<trait_through_toolnexus::Wrapper<u8>>(),
        "Wrapper"
    );
    assert_eq!(trait_through_toolnexus::name_of::<ours::Filter>(), "Filter");
}
