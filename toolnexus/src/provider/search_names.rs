//! The names the search items go by on each API, and [`ToolSearch`]: what the search tool is
//! called, and the `metadata` keys of its answer.

/// The local search tool's name (Chat Completions, Gemini, Anthropic with
/// [`ToolSearch::Local`]).
pub(crate) const SEARCH_TOOLS: &str = "search_tools";
/// The name a client-executed OpenAI Responses `tool_search_call` gets as a
/// [`ToolCall`](crate::ToolCall): the item has no name of its own.
pub(crate) const TOOL_SEARCH: &str = "tool_search";
/// The `metadata` key of a search's answer listing the tools it found, by name.
pub(crate) const FOUND_KEY: &str = "tools";
/// The `metadata` key of a Responses search's answer holding the found tools' definitions.
pub(crate) const DEFINITIONS_KEY: &str = "definitions";
/// The most tools one search may return.
pub(crate) const MAX_LIMIT: u64 = 20;
/// How many tools a search returns when the model does not say.
pub(crate) const DEFAULT_LIMIT: u64 = 5;

/// How the model finds deferred tools (SPEC §15), chosen with
/// [`Toolkit::tool_search`](crate::Toolkit::tool_search).
///
/// Chat Completions and Gemini have no search of their own: they always get the toolkit's
/// local `search_tools` tool. Anthropic and OpenAI Responses search on their side by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolSearch {
    /// Anthropic's BM25 tool search (`tool_search_tool_bm25_20251119`); OpenAI Responses'
    /// hosted `tool_search`. The default.
    #[default]
    Bm25,
    /// Anthropic's regex tool search (`tool_search_tool_regex_20251119`), where the model
    /// writes Python regular expressions; OpenAI Responses' hosted `tool_search`.
    Regex,
    /// The toolkit's own BM25 index on every API: Anthropic gets the `search_tools` tool,
    /// answered with `tool_reference` blocks; OpenAI Responses a client-executed
    /// `tool_search`, answered with the found tools' definitions. Deferred tools then never
    /// leave the process until found.
    Local,
}
