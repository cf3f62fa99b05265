//! The zoo: one `#[tool]` per family of parameter shapes, each echoing what it decoded (its
//! `Debug` form), so two entry points that decode differently give different outputs.
#![allow(
    dead_code,
    reason = "the fields are read through their `Debug` output, which the lint does not count"
)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::num::{NonZeroI8, NonZeroI32, NonZeroU8, NonZeroU32, NonZeroU64, NonZeroUsize};

use serde::Deserialize;
use serde_json::Value;
use toolnexus::{JsonSchema, Tool, tool, tools};

/// Every fixed-width integer.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn integers(
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: u8,
    f: u16,
    count: u32,
    h: u64,
    i: isize,
    j: usize,
) -> String {
    format!("{a} {b} {c} {d} {e} {f} {count} {h} {i} {j}")
}

/// 128-bit integers.
#[tool]
pub fn wide_integers(signed: i128, unsigned: u128, maybe: Option<i128>) -> String {
    format!("{signed} {unsigned} {maybe:?}")
}

/// Non-zero integers.
#[tool]
pub fn non_zero(
    a: NonZeroU8,
    b: NonZeroU32,
    c: NonZeroU64,
    d: NonZeroUsize,
    e: NonZeroI8,
    f: NonZeroI32,
    g: Option<NonZeroI8>,
) -> String {
    format!("{a} {b} {c} {d} {e} {f} {g:?}")
}

/// Floats, booleans and strings.
#[tool]
pub fn scalars(ratio: f32, precise: f64, flag: bool, text: String) -> String {
    format!("{ratio:?} {precise:?} {flag} {text:?}")
}

/// A character.
#[tool]
pub fn character(letter: char, maybe: Option<char>) -> String {
    format!("{letter:?} {maybe:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Window {
    /// Inclusive lower bound
    pub from: u16,
    pub to: Option<u16>,
}

/// Optional and defaulted parameters at the top level.
#[tool]
pub fn optionals(
    name: Option<String>,
    limit: Option<u32>,
    window: Option<Window>,
    #[param(default = 7)] days: u8,
    #[serde(default)] case_sensitive: bool,
) -> String {
    format!("{name:?} {limit:?} {window:?} {days} {case_sensitive}")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Query {
    pub search_text: String,
    #[serde(default)]
    pub case_sensitive: bool,
    #[serde(default = "default_page_size")]
    pub page_size: u16,
    #[serde(rename = "max-price")]
    pub max_price: Option<f64>,
    pub country: CountryCode,
}

/// Two capital letters, as its schema's `pattern` says; anything else is refused.
#[derive(Debug)]
pub struct CountryCode(pub String);

impl<'de> Deserialize<'de> for CountryCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        if code.len() == 2 && code.bytes().all(|byte| byte.is_ascii_uppercase()) {
            Ok(Self(code))
        } else {
            Err(serde::de::Error::custom("expected two capital letters"))
        }
    }
}

impl toolnexus::schemars::JsonSchema for CountryCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CountryCode".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut toolnexus::schemars::SchemaGenerator) -> toolnexus::schemars::Schema {
        toolnexus::schemars::json_schema!({"type": "string", "pattern": "^[A-Z]{2}$"})
    }
}

fn default_page_size() -> u16 {
    20
}

/// Serde defaults and renames inside a struct.
#[tool]
pub fn search(query: Query) -> String {
    format!("{query:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Paging {
    pub page: u32,
    pub per_page: Option<u8>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "order", rename_all = "lowercase")]
pub enum Sort {
    Newest,
    Nearest { lat: f64, lon: f64 },
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Listing {
    pub topic: String,
    #[serde(flatten)]
    pub paging: Paging,
    #[serde(flatten)]
    pub sort: Sort,
}

/// A struct with a flattened struct and a flattened enum.
#[tool]
pub fn listing(page: Listing) -> String {
    format!("{page:?}")
}

/// A flattened map: every key but `label` is a count.
#[tool]
pub fn flat_map(label: String, #[serde(flatten)] counts: BTreeMap<String, u16>) -> String {
    format!("{label:?} {counts:?}")
}

/// The same flattened struct and enum as parameters of the tool itself.
#[tool]
pub fn flat_listing(
    topic: String,
    #[serde(flatten)] paging: Paging,
    #[serde(flatten)] sort: Sort,
) -> String {
    format!("{topic:?} {paging:?} {sort:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub enum Command {
    Stop,
    Wait(u32),
    Move { dx: i16, dy: i16 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    Circle { radius: f64 },
    Rect { width: u32, height: u32 },
    Empty,
}

/// No unit variant and no `Option` content: schemars leaves an adjacently tagged unit variant
/// open to any content (`{"t": "Ping"}` plus any other key) while serde refuses content other
/// than `null`, and requires the content of an `Option` variant, which serde lets go missing.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Event {
    Tick(u16),
    Count(u8),
    Span { start: u64, end: u64 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Loose {
    Number(i64),
    Text(String),
    Pair { left: bool, right: Option<bool> },
}

/// Every enum representation.
#[tool]
pub fn enums(unit: Unit, command: Command, shape: Shape, event: Event, loose: Loose) -> String {
    format!("{unit:?} {command:?} {shape:?} {event:?} {loose:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub sku: String,
    pub quantity: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Order {
    pub items: Vec<Item>,
    pub note: Option<String>,
}

/// Sequences: lists, nested lists, fixed arrays, sets, a same-type pair.
#[tool]
pub fn sequences(order: Order, matrix: Vec<Vec<i8>>, rgb: [u8; 3], point: (i32, i32)) -> String {
    format!("{order:?} {matrix:?} {rgb:?} {point:?}")
}

/// Tuples of different types.
#[tool]
pub fn tuples(pair: (u8, String), single: (bool,)) -> String {
    format!("{pair:?} {single:?}")
}

/// Maps.
#[tool]
pub fn maps(prices: HashMap<String, f64>, groups: BTreeMap<String, Vec<u8>>) -> String {
    let prices: BTreeMap<_, _> = prices.into_iter().collect();
    format!("{prices:?} {groups:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Node {
    pub name: String,
    pub children: Vec<Node>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Chain {
    pub value: u8,
    pub next: Option<Box<Chain>>,
}

/// Recursive types.
#[tool]
pub fn recursive(tree: Node, chain: Option<Chain>) -> String {
    format!("{tree:?} {chain:?}")
}

/// Free-form JSON.
#[tool]
pub fn free_form(payload: Value, extra: Option<Value>) -> String {
    format!("{payload} {extra:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OrderId(pub u64);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Label {
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Percent(pub u8);

/// Newtypes.
#[tool]
pub fn newtypes(id: OrderId, label: Label, share: Option<Percent>, ids: Vec<OrderId>) -> String {
    format!("{id:?} {label:?} {share:?} {ids:?}")
}

/// Parameters their own functions decode: `null` still means absent where the parameter may
/// be absent, as the schemas say.
#[tool]
pub fn own_decoders(
    #[serde(deserialize_with = "doubled")]
    #[param(default = 1)]
    doubled_or_one: u32,
    #[serde(deserialize_with = "maybe_doubled")] maybe: Option<u32>,
    #[serde(deserialize_with = "trimmed")]
    #[param(default)]
    label: String,
    #[serde(deserialize_with = "trimmed")] required: String,
) -> String {
    format!("{doubled_or_one} {maybe:?} {label:?} {required:?}")
}

fn doubled<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    u32::deserialize(deserializer).map(|n| n.saturating_mul(2))
}

fn maybe_doubled<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    doubled(deserializer).map(Some)
}

fn trimmed<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    String::deserialize(deserializer).map(|text| text.trim().to_owned())
}

/// Numeric bounds a user set, flat: inclusive, exclusive, and a step.
#[tool]
pub fn bounded(
    #[schemars(range(min = 1, max = 10))] qty: u32,
    #[schemars(range(min = 0.0, max = 1.0))] discount: f64,
    #[schemars(extend("exclusiveMinimum" = -5, "exclusiveMaximum" = 5))] offset: i32,
    #[schemars(range(max = 100), extend("multipleOf" = 5))] step: Option<u16>,
    #[schemars(range(min = 0.0), extend("multipleOf" = 0.25))] quarter: f64,
) -> String {
    format!("{qty} {discount:?} {offset} {step:?} {quarter:?}")
}

/// String lengths (in code points) and patterns.
#[tool]
pub fn lengths(
    #[schemars(length(min = 2, max = 5))] code: String,
    #[schemars(length(max = 3))] note: Option<String>,
    #[schemars(regex(pattern = r"^[A-Z][a-z]{1,6}$"))] name: String,
    #[schemars(length(min = 1, max = 4), regex(pattern = r"^[0-9]{1,4}$"))] digits: String,
) -> String {
    format!("{code:?} {note:?} {name:?} {digits:?}")
}

/// Item and key counts, and uniqueness: a set's, and one a user asked of a list.
#[tool]
pub fn counts(
    #[schemars(length(min = 1, max = 3))] picks: Vec<u8>,
    #[schemars(extend("minProperties" = 1, "maxProperties" = 2))] flags: BTreeMap<String, bool>,
    tags: BTreeSet<String>,
    #[schemars(extend("uniqueItems" = true))] ids: Vec<u8>,
) -> String {
    format!("{picks:?} {flags:?} {tags:?} {ids:?}")
}

/// A line of an order, limited inside.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Line {
    #[schemars(range(min = 1, max = 10))]
    qty: u32,
    #[schemars(length(min = 3, max = 8), regex(pattern = r"^[A-Z]{3,8}$"))]
    code: String,
}

/// Limits on a newtype, wherever it sits.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Share(#[schemars(range(min = 0, max = 100))] u8);

/// Limits inside a variant.
#[derive(Debug, Deserialize, JsonSchema)]
pub enum Adjust {
    By(#[schemars(range(min = -10, max = 10))] i8),
    To {
        #[schemars(length(max = 4))]
        label: String,
    },
}

/// Limits nested in lists, options, maps and variants, and on a newtype.
#[tool]
pub fn nested_limits(
    #[schemars(length(max = 3))] lines: Vec<Line>,
    extra: Option<Line>,
    share: Share,
    shares: Vec<Share>,
    by_name: BTreeMap<String, Share>,
    adjust: Option<Adjust>,
) -> String {
    format!("{lines:?} {extra:?} {share:?} {shares:?} {by_name:?} {adjust:?}")
}

/// Every tool of the zoo.
pub fn all() -> Vec<std::sync::Arc<dyn Tool>> {
    tools![
        integers,
        wide_integers,
        non_zero,
        scalars,
        character,
        optionals,
        search,
        listing,
        flat_listing,
        flat_map,
        enums,
        sequences,
        tuples,
        maps,
        recursive,
        free_form,
        newtypes,
        own_decoders,
        bounded,
        lengths,
        counts,
        nested_limits,
    ]
}
