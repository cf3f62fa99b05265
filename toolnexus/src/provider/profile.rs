//! Profiles: which schema each provider is sent for a tool, and what that schema's dialect
//! cannot say about the tool's arguments (SPEC §11) — [`check`] and
//! [`Toolkit::check`](crate::Toolkit::check) list it instead of narrowing it silently. A
//! toolkit builds each tool's profile once, on first use, and keeps it ([`Profiles`]).

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::provider::loss::Loss;
use crate::provider::openai::{self, strict};
use crate::provider::{anthropic, gemini};
use crate::tool::{Tool, ToolSource};

/// Which schema a provider is sent for a tool: a schema dialect, not a provider — Gemini has
/// two ([`Gemini`](Self::Gemini), [`GeminiJsonSchema`](Self::GeminiJsonSchema)), Anthropic two
/// ([`Plain`](Self::Plain), [`AnthropicStrict`](Self::AnthropicStrict)) — and so not the
/// shape of a turn ([`Api`](crate::Api)) nor a part's encoding ([`Style`](crate::parts::Style)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// The tool's own [`input_schema`](Tool::input_schema), unchanged: what
    /// [`to_openai`](crate::Toolkit::to_openai), [`to_anthropic`](crate::Toolkit::to_anthropic)
    /// and [`to_mcp`](crate::Toolkit::to_mcp) send.
    Plain,
    /// OpenAI strict mode's schema, what [`to_openai_strict`](crate::Toolkit::to_openai_strict)
    /// sends for a tool it can express: every object closed and all its properties required,
    /// optional ones nullable, no `default`.
    OpenAiStrict,
    /// What [`to_gemini`](crate::Toolkit::to_gemini) sends: Gemini's OpenAPI 3.0 subset, as
    /// `parameters` (no `$ref`, `nullable` instead of type arrays, `anyOf` for `oneOf`). A
    /// recursive type is unrolled three levels below the argument and cut there, and one schema
    /// inlines at most 1,000 definitions; [`Toolkit::check`](crate::Toolkit::check) reports
    /// each cut.
    Gemini,
    /// What [`to_gemini_json_schema`](crate::Toolkit::to_gemini_json_schema) sends as
    /// `parametersJsonSchema`: JSON Schema, maps, tuples and recursion included.
    GeminiJsonSchema,
    /// Anthropic strict tool use's schema subset, what
    /// [`to_anthropic_strict`](crate::Toolkit::to_anthropic_strict) sends for a tool it can
    /// express, with `"strict": true`.
    AnthropicStrict,
}

impl Profile {
    /// Every profile, for checking them all.
    pub const ALL: [Profile; 5] = [
        Profile::Plain,
        Profile::OpenAiStrict,
        Profile::Gemini,
        Profile::GeminiJsonSchema,
        Profile::AnthropicStrict,
    ];

    /// The schema this profile sends for an input `schema`, and what it cannot say (each issue
    /// as [`Toolkit::check`](crate::Toolkit::check) reports it, with an empty [`SchemaIssue::tool`]): the one way to rewrite
    /// a schema you hold yourself, where [`Toolkit`](crate::Toolkit) rewrites its tools'.
    /// [`Profile::Plain`] returns the schema as it is.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::Profile;
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}},
    ///     "required": ["city"],
    /// });
    /// let (strict, issues) = Profile::OpenAiStrict.rewrite(schema.as_object().unwrap());
    /// assert_eq!(serde_json::Value::Object(strict), json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
    ///     "required": ["city", "days"],
    ///     "additionalProperties": false,
    /// }));
    /// assert!(issues.is_empty());
    /// ```
    pub fn rewrite(self, schema: &Map<String, Value>) -> (Map<String, Value>, Vec<SchemaIssue>) {
        let (rewritten, losses) = self.losses(schema);
        let issues = issues("", self, Some(schema), losses);
        (rewritten, issues)
    }

    /// The schema this profile sends for `schema`, and what its dialect could not say.
    fn losses(self, schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
        match self {
            Profile::Plain => (schema.clone(), Vec::new()),
            Profile::OpenAiStrict => strict::rewrite(schema),
            Profile::Gemini => gemini::rewrite(schema),
            Profile::GeminiJsonSchema => gemini::json_schema::rewrite(schema),
            Profile::AnthropicStrict => anthropic::strict::rewrite(schema),
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Profile::Plain => "the plain schema",
            Profile::OpenAiStrict => "OpenAI strict mode",
            Profile::Gemini => "Gemini",
            Profile::GeminiJsonSchema => "Gemini's JSON Schema",
            Profile::AnthropicStrict => "Anthropic strict tool use",
        })
    }
}

/// One place where the schema a provider is sent cannot say what the tool accepts.
///
/// Its `Display` is one line:
/// ``tool `maps`, argument `prices`: OpenAI strict mode cannot say the entries of a map (…): …``.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaIssue {
    /// The tool's name.
    pub tool: String,
    /// The profile that cannot say it.
    pub profile: Profile,
    /// Where in the arguments, as a path: `order.prices`, `order.items[]` for every element of
    /// a list; empty for the arguments object itself.
    pub path: String,
    /// What the sent schema cannot say, e.g. `the entries of a map (any key, each value
    /// {"type":"number"})`.
    pub lost: String,
    /// Why, and what is sent instead.
    pub why: String,
    /// Whether the model is still told, in words, and refused when it does not comply.
    pub kind: IssueKind,
}

/// What a [`SchemaIssue`] means for a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueKind {
    /// The model cannot be told: the schema sent admits values the tool takes differently, or
    /// not at all (a map's entries, a free-form `serde_json::Value`, a tuple's positions, a
    /// recursion cut short). A strict profile sends such a tool non-strict.
    Unsaid,
    /// Enforced by the tool only: the dialect has no keyword for this limit (`maxLength`
    /// under OpenAI strict mode, say), so it is written into that property's `description`
    /// ("at most 5 characters") and the tool refuses a value that breaks it, with an error
    /// naming the field and the limit, which the model can act on. Strict mode stays on.
    EnforcedByTool,
    /// The tool cannot enforce what its own schema says: a `pattern` that does not compile as
    /// a regular expression (ECMA-262, as the tool reads it), so every string at that place is
    /// refused, with an error naming the pattern. Reported under every profile,
    /// [`Profile::Plain`] included; the fix is in the schema.
    Unenforceable,
}

impl fmt::Display for SchemaIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool `{}`", self.tool)?;
        if !self.path.is_empty() {
            write!(f, ", argument `{}`", self.path)?;
        }
        write!(
            f,
            ": {} cannot say {}: {}",
            self.profile, self.lost, self.why
        )
    }
}

/// Lists every place where the schema `tool` is sent under `profile` cannot say what the tool
/// accepts; empty when the provider is told exactly what the tool takes, or less (SPEC §11).
///
/// Each issue is of one [`IssueKind`]: a limit the dialect has no keyword for but the tool
/// enforces (a `char`'s length under OpenAI strict mode, an `exclusiveMinimum` under Gemini)
/// is [`IssueKind::EnforcedByTool`] — written into the property's description, so the model is
/// still told; anything else is [`IssueKind::Unsaid`].
///
/// - [`Profile::Plain`] is the tool's own schema, so nothing is ever lost.
/// - [`Profile::OpenAiStrict`]: unsaid are a map, a tuple of different types, a free-form
///   `serde_json::Value` and keywords no tool enforces; [`to_openai_strict`](crate::Toolkit::to_openai_strict)
///   sends a tool with any of these with `"strict": false` and its plain schema, which does
///   not lie. Described: `minLength`/`maxLength`, `uniqueItems`, `minProperties`/`maxProperties`
///   and formats strict mode does not document.
/// - [`Profile::Gemini`]: unsaid are a map, a tuple of different types, a recursive type deeper
///   than the depth Gemini's profile unrolls it to; described: non-string
///   `enum`s and `const`s, `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `uniqueItems`,
///   and formats Gemini does not document. [`to_gemini`](crate::Toolkit::to_gemini) sends the
///   best approximation.
/// - [`Profile::GeminiJsonSchema`]: maps, tuples, recursion and free values are said as they
///   are; unsaid are only keywords no tool enforces (`not`, `allOf`, `unevaluatedProperties`,
///   …); described: `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, a non-string,
///   non-number `const`.
/// - [`Profile::AnthropicStrict`]: unsaid are a map, a tuple of different types, a free-form
///   value, a recursive type, `allOf`; [`to_anthropic_strict`](crate::Toolkit::to_anthropic_strict)
///   sends such a tool non-strict with its plain schema. Described: numeric bounds,
///   `multipleOf`, string lengths, `pattern`, `minItems` above 1, `maxItems`, `uniqueItems`,
///   property counts, formats it does not document.
///
/// Under OpenAI strict, Anthropic strict and Gemini's JSON Schema, a `$ref` to a schema the
/// tool's own does not hold (another document, a definition that is not there) is unsaid too:
/// no provider can follow it, so the strict profiles send such a tool plain.
///
/// Assert it is empty in your own tests, so a new parameter type cannot quietly make a
/// provider see less than the tool takes:
///
/// ```
/// use std::collections::HashMap;
/// use toolnexus::{Profile, Toolkit, tool};
///
/// /// Sums prices.
/// #[tool]
/// fn total(prices: Vec<f64>) -> f64 {
///     prices.iter().sum()
/// }
///
/// /// Sums named prices.
/// #[tool]
/// fn total_by_name(prices: HashMap<String, f64>) -> f64 {
///     prices.values().sum()
/// }
///
/// for profile in Profile::ALL {
///     assert_eq!(Toolkit::new().with(TotalTool).check(profile), []);
/// }
/// let issues = Toolkit::new().with(TotalByNameTool).check(Profile::OpenAiStrict);
/// assert_eq!(issues[0].path, "prices");
/// assert_eq!(
///     issues[0].to_string(),
///     "tool `total_by_name`, argument `prices`: OpenAI strict mode cannot say the entries of \
///      a map (any key, each value {\"type\":\"number\"}): strict mode requires \
///      `additionalProperties: false` on every object, so the tool is sent with \
///      \"strict\": false and its plain schema",
/// );
/// ```
pub(crate) fn check(tool: &dyn Tool, profile: Profile) -> Vec<SchemaIssue> {
    if profile == Profile::Plain {
        return issues(tool.name(), profile, patterns_of(tool), Vec::new());
    }
    build(tool, profile).issues
}

/// The schema whose `pattern`s `tool` matches: none for a remote MCP tool, whose server
/// matches its own (SPEC §13), so a pattern that does not compile here refuses nothing.
fn patterns_of(tool: &dyn Tool) -> Option<&Map<String, Value>> {
    (tool.source() != ToolSource::Mcp).then(|| tool.input_schema())
}

/// The issues of the tool named `tool` under `profile`: its rewrite's `losses`, then every
/// `pattern` of `patterns` (the schema whose patterns it matches) that does not compile.
fn issues(
    tool: &str,
    profile: Profile,
    patterns: Option<&Map<String, Value>>,
    losses: Vec<Loss>,
) -> Vec<SchemaIssue> {
    let lost = losses.into_iter().map(|loss| SchemaIssue {
        tool: tool.to_owned(),
        profile,
        path: loss.path,
        lost: loss.lost,
        why: loss.why,
        kind: if loss.described {
            IssueKind::EnforcedByTool
        } else {
            IssueKind::Unsaid
        },
    });
    let unenforceable = patterns.map(|schema| unenforceable(tool, profile, schema));
    lost.chain(unenforceable.into_iter().flatten()).collect()
}

/// Every `pattern` of `schema` that does not compile, as issues under `profile`.
fn unenforceable(tool: &str, profile: Profile, schema: &Map<String, Value>) -> Vec<SchemaIssue> {
    let schema = Value::Object(schema.clone());
    crate::decode::broken_patterns(&schema)
        .into_iter()
        .map(|(pointer, pattern, error)| SchemaIssue {
            tool: tool.to_owned(),
            profile,
            path: argument_path(&pointer),
            lost: format!("the pattern `{pattern}`"),
            why: format!(
                "it does not compile as a regular expression ({error}), so the tool refuses \
                 every string here"
            ),
            kind: IssueKind::Unenforceable,
        })
        .collect()
}

/// The argument path of a JSON pointer into a schema: `/properties/lines/items/properties/code`
/// is `lines[].code`; the keywords that only choose a branch or a definition (`anyOf/0`,
/// `$defs/Item`) add nothing.
fn argument_path(pointer: &str) -> String {
    let mut path = String::new();
    let mut segments = pointer.split('/').skip(1);
    while let Some(segment) = segments.next() {
        match segment {
            "properties" | "patternProperties" => {
                if let Some(name) = segments.next() {
                    let name = name.replace("~1", "/").replace("~0", "~");
                    path = crate::provider::loss::property_path(&path, &name);
                }
            }
            "items" | "prefixItems" | "additionalProperties" => {
                path = crate::provider::loss::items_path(&path);
                if segment == "prefixItems" {
                    segments.next();
                }
            }
            "anyOf" | "oneOf" | "allOf" | "$defs" | "definitions" => {
                segments.next();
            }
            _ => {}
        }
    }
    path
}

/// One tool under one profile other than [`Profile::Plain`]: its definition entry, as the
/// provider's `tools` list holds it, and what `check` reports.
#[derive(Debug)]
struct Built {
    entry: Value,
    issues: Vec<SchemaIssue>,
}

/// The rewrite `profile` makes of `tool`'s schema, and the entry it sends; the plain schema
/// is sent as it is (its entry differs between providers) and loses nothing.
fn build(tool: &dyn Tool, profile: Profile) -> Built {
    let (schema, losses) = profile.losses(tool.input_schema());
    // Limits said in words keep a strict tool strict; only what the model cannot be told
    // sends it non-strict.
    let exact = losses.iter().all(|loss| loss.described);
    let entry = match profile {
        Profile::Plain => Value::Object(schema),
        Profile::OpenAiStrict => openai::strict_entry(tool, schema, exact),
        Profile::Gemini => gemini::declaration(tool, schema),
        Profile::GeminiJsonSchema => gemini::json_schema_declaration(tool, schema),
        Profile::AnthropicStrict => anthropic::strict_entry(tool, schema, exact),
    };
    let issues = issues(tool.name(), profile, patterns_of(tool), losses);
    Built { entry, issues }
}

/// Every tool's profiles in a [`Toolkit`](crate::Toolkit), by registration order, each built
/// on first use and kept: `to_openai_strict()`, `to_gemini()` and `check()` then cost about a
/// clone of their result. Shared by the toolkit's clones (a tool's profiles depend on the tool
/// alone).
#[derive(Debug, Clone, Default)]
pub(crate) struct Profiles(Vec<Arc<Slots>>);

/// One tool's profiles, one slot for each profile that rewrites the schema.
#[derive(Debug, Default)]
struct Slots {
    openai_strict: OnceLock<Built>,
    gemini: OnceLock<Built>,
    gemini_json_schema: OnceLock<Built>,
    anthropic_strict: OnceLock<Built>,
}

impl Profiles {
    /// Makes room for the tool registered next.
    pub(crate) fn push(&mut self) {
        self.0.push(Arc::default());
    }

    /// What `profile` sends for each of `tools` (the toolkit's, in order), built where it was
    /// not yet: the entries of the provider's `tools` list.
    fn entries<'a>(
        &'a self,
        tools: &'a [Arc<dyn Tool>],
        profile: Profile,
    ) -> impl Iterator<Item = &'a Built> {
        self.entries_where(tools, profile, |_| true)
    }

    /// [`entries`](Self::entries) of the tools whose position `send` accepts.
    fn entries_where<'a>(
        &'a self,
        tools: &'a [Arc<dyn Tool>],
        profile: Profile,
        send: impl Fn(usize) -> bool + 'a,
    ) -> impl Iterator<Item = &'a Built> {
        let kept = tools.iter().zip(&self.0).enumerate();
        kept.filter(move |(at, _)| send(*at))
            .filter_map(move |(_, (tool, slots))| {
                let slot = match profile {
                    // Sent as it is: nothing to build, nothing lost.
                    Profile::Plain => return None,
                    Profile::OpenAiStrict => &slots.openai_strict,
                    Profile::Gemini => &slots.gemini,
                    Profile::GeminiJsonSchema => &slots.gemini_json_schema,
                    Profile::AnthropicStrict => &slots.anthropic_strict,
                };
                Some(slot.get_or_init(|| build(tool.as_ref(), profile)))
            })
    }

    /// The entries `profile` sends for `tools`, in order.
    fn list(&self, tools: &[Arc<dyn Tool>], profile: Profile) -> Vec<Value> {
        let entries = self.entries(tools, profile);
        entries.map(|built| built.entry.clone()).collect()
    }

    /// The entries `profile` sends for the tools whose position `send` accepts, in order;
    /// only those are built (SPEC §15: a run sends a few of many tools).
    pub(crate) fn some(
        &self,
        tools: &[Arc<dyn Tool>],
        profile: Profile,
        send: impl Fn(usize) -> bool,
    ) -> Vec<Value> {
        let entries = self.entries_where(tools, profile, send);
        entries.map(|built| built.entry.clone()).collect()
    }

    /// [`Toolkit::to_openai_strict`](crate::Toolkit::to_openai_strict).
    pub(crate) fn openai_strict(&self, tools: &[Arc<dyn Tool>]) -> Value {
        Value::Array(self.list(tools, Profile::OpenAiStrict))
    }

    /// [`Toolkit::to_gemini`](crate::Toolkit::to_gemini).
    pub(crate) fn gemini(&self, tools: &[Arc<dyn Tool>]) -> Value {
        gemini::tools_list(self.list(tools, Profile::Gemini))
    }

    /// [`Toolkit::to_gemini_json_schema`](crate::Toolkit::to_gemini_json_schema).
    pub(crate) fn gemini_json_schema(&self, tools: &[Arc<dyn Tool>]) -> Value {
        gemini::tools_list(self.list(tools, Profile::GeminiJsonSchema))
    }

    /// [`Toolkit::to_anthropic_strict`](crate::Toolkit::to_anthropic_strict).
    pub(crate) fn anthropic_strict(&self, tools: &[Arc<dyn Tool>]) -> Value {
        Value::Array(self.list(tools, Profile::AnthropicStrict))
    }

    /// [`Toolkit::check`](crate::Toolkit::check).
    pub(crate) fn issues(&self, tools: &[Arc<dyn Tool>], profile: Profile) -> Vec<SchemaIssue> {
        if profile == Profile::Plain {
            return tools
                .iter()
                .flat_map(|tool| check(tool.as_ref(), profile))
                .collect();
        }
        self.entries(tools, profile)
            .flat_map(|built| built.issues.iter().cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::profile::*;

    #[test]
    fn every_rewritten_profile_leaves_out_a_remote_schemas_draft() {
        let remote = serde_json::json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        });
        for profile in Profile::ALL {
            let (sent, _) = profile.rewrite(remote.as_object().unwrap());
            assert_eq!(
                sent.contains_key("$schema"),
                profile == Profile::Plain,
                "{profile:?}"
            );
        }
    }
}
