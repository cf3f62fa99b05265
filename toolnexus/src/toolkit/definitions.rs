//! What a toolkit tells each provider: its tools' definitions in every dialect, and
//! [`Toolkit::check`], the places where a dialect cannot say what a tool accepts.

use serde_json::Value;

use super::Toolkit;
use crate::provider::profile::{Profile, SchemaIssue};
use crate::provider::{anthropic, mcp_result, openai};
#[cfg(doc)]
use crate::{result::ToolResult, tool::Tool};

impl Toolkit {
    /// Every place where the schema `profile` sends cannot say what a tool of this toolkit
    /// accepts, tool by tool in registration order.
    ///
    /// Assert in your own tests that nothing is reported but limits said in a description
    /// instead ([`IssueKind::EnforcedByTool`](crate::IssueKind::EnforcedByTool): enforced by
    /// the tool; Anthropic strict tool use, say, has no numeric bounds):
    ///
    /// ```
    /// use toolnexus::{IssueKind, Profile, Toolkit, tool, tools};
    ///
    /// /// Current weather for a city.
    /// #[tool]
    /// fn weather(city: String, #[param(default = 1)] days: u8) -> String {
    ///     format!("{city}: sunny for {days} day(s)")
    /// }
    ///
    /// let toolkit = Toolkit::new().with_all(tools![weather]);
    /// for profile in Profile::ALL {
    ///     let unsaid: Vec<String> = toolkit
    ///         .check(profile)
    ///         .iter()
    ///         .filter(|issue| issue.kind != IssueKind::EnforcedByTool)
    ///         .map(|issue| issue.to_string())
    ///         .collect();
    ///     assert!(unsaid.is_empty(), "{}", unsaid.join("\n"));
    /// }
    /// let said_in_words = &toolkit.check(Profile::AnthropicStrict)[0];
    /// assert_eq!(said_in_words.path, "days");
    /// assert_eq!(toolkit.to_anthropic_strict()[0]["strict"], true);
    /// ```
    pub fn check(&self, profile: Profile) -> Vec<SchemaIssue> {
        self.profiles.issues(&self.tools, profile)
    }

    /// OpenAI Chat Completions `tools`: `[{"type":"function","function":{name, description,
    /// parameters}}]`, the parameters being each tool's cached schema as is.
    ///
    /// Names are emitted exactly as registered (never [`sanitize`](crate::sanitize)d here), so
    /// the name a model calls is the name [`execute`](Self::execute) finds.
    pub fn to_openai(&self) -> Value {
        openai::definitions(&self.tools)
    }

    /// [`to_openai`](Self::to_openai) for OpenAI's strict mode: each function's parameters
    /// are rewritten by [`Profile::OpenAiStrict`](crate::Profile::OpenAiStrict) and it gets
    /// `"strict": true`.
    ///
    /// A limit strict mode has no keyword for but the tool enforces (a `char`'s length, say)
    /// is written into the property's description and the tool stays strict. A tool whose
    /// schema strict mode cannot say — a map, a tuple of different types, a free-form
    /// `serde_json::Value`, … ([`check`](Self::check) with [`Profile::OpenAiStrict`] lists
    /// each place as [`IssueKind::Unsaid`](crate::IssueKind::Unsaid)) — is sent
    /// with `"strict": false` and its plain schema instead: the best approximation strict
    /// mode has would tell the model something other than what the tool takes (only `{}` for
    /// a map), while the plain schema says exactly that, unenforced.
    pub fn to_openai_strict(&self) -> Value {
        self.profiles.openai_strict(&self.tools)
    }

    /// OpenAI Responses `tools`: `[{"type":"function","name","description","parameters",
    /// "strict"}]`, the flat form of [`to_openai_strict`](Self::to_openai_strict)'s entries:
    /// the same parameters and the same `strict` for every tool.
    ///
    /// ```
    /// use toolnexus::{Toolkit, tool, tools};
    ///
    /// /// Current weather for a city.
    /// #[tool]
    /// fn weather(city: String) -> String { city }
    ///
    /// let tk = Toolkit::new().with_all(tools![weather]);
    /// let entry = &tk.to_openai_responses()[0];
    /// assert_eq!((entry["type"].as_str(), entry["name"].as_str()), (Some("function"), Some("weather")));
    /// assert_eq!(entry["strict"], true);
    /// assert_eq!(entry["parameters"], tk.to_openai_strict()[0]["function"]["parameters"]);
    /// ```
    pub fn to_openai_responses(&self) -> Value {
        openai::responses::definitions(self.to_openai_strict())
    }

    /// Anthropic Messages `tools`: `[{name, description, input_schema}]`.
    pub fn to_anthropic(&self) -> Value {
        anthropic::definitions(&self.tools)
    }

    /// Gemini `tools`: `[{"functionDeclarations":[{name, description, parameters}]}]`, the
    /// parameters lowered by [`Profile::Gemini`](crate::Profile::Gemini).
    ///
    /// A tool whose lowered schema has no properties is declared without `parameters`,
    /// because Gemini rejects an `OBJECT` with no properties. Where Gemini's dialect cannot
    /// say what a tool accepts (a map, a tuple of different types, recursion deeper than
    /// the depth the profile unrolls it to, …) the declaration carries
    /// the best approximation [`Profile::Gemini`](crate::Profile::Gemini) describes — cut so it
    /// still decodes where it can be — and [`check`](Self::check) with
    /// [`Profile::Gemini`](crate::Profile::Gemini) lists each place.
    pub fn to_gemini(&self) -> Value {
        self.profiles.gemini(&self.tools)
    }

    /// Gemini `tools` with JSON Schema: `[{"functionDeclarations":[{name, description,
    /// parametersJsonSchema, responseJsonSchema?}]}]`, the parameters rewritten by
    /// [`Profile::GeminiJsonSchema`](crate::Profile::GeminiJsonSchema) (maps, tuples and recursive types
    /// as they are), the response only for a tool with an
    /// [`output_schema`](Tool::output_schema) (a fn returning `Json<T>`). A tool without
    /// parameters is declared without them. [`check`](Self::check) with
    /// [`Profile::GeminiJsonSchema`] lists what this dialect cannot say.
    pub fn to_gemini_json_schema(&self) -> Value {
        self.profiles.gemini_json_schema(&self.tools)
    }

    /// Anthropic `tools` for strict tool use: `[{name, description, input_schema, strict}]`,
    /// each schema rewritten by [`Profile::AnthropicStrict`](crate::Profile::AnthropicStrict)
    /// with `"strict": true`. A tool whose schema strict tool use cannot say (a map, a free
    /// `serde_json::Value`, a recursive type, …: [`check`](Self::check) with
    /// [`Profile::AnthropicStrict`] lists each place as
    /// [`IssueKind::Unsaid`](crate::IssueKind::Unsaid)) is sent with `"strict": false` and its
    /// plain schema.
    pub fn to_anthropic_strict(&self) -> Value {
        self.profiles.anthropic_strict(&self.tools)
    }

    /// MCP `tools/list` entries: `[{name, title?, description, inputSchema, outputSchema?,
    /// annotations?}]`, the parts with `?` only for tools that have them
    /// ([`Tool::title`], [`Tool::output_schema`], [`Tool::annotations`]: only the hints that
    /// are set, as `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`). A
    /// read-only tool is never sent as destructive: with both set, `destructiveHint` is
    /// `false`. None of these appear in the other providers' definitions.
    ///
    /// Results of tools with an output schema go out with
    /// [`ToolResult::to_mcp_for`], which adds their `structuredContent`.
    pub fn to_mcp(&self) -> Value {
        mcp_result::definitions(&self.tools)
    }
}
