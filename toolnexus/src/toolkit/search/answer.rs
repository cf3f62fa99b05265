//! Answering the model's search (SPEC §15): the `search_tools` call (Chat Completions, Gemini,
//! Anthropic with the local search) and OpenAI Responses' client-executed `tool_search`.

use crate::Profile;
use crate::provider::search::{answer, arguments, found_definitions};
use crate::provider::search_names::{DEFINITIONS_KEY, SEARCH_TOOLS, TOOL_SEARCH};
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::toolkit::Toolkit;
use crate::toolkit::run_state::RunState;

impl Toolkit {
    /// Whether `call` is the model's search rather than a call of one of the tools: it is
    /// named as a search is, no tool has that name, and there is something to search.
    pub(crate) fn is_search(&self, call: &ToolCall) -> bool {
        (call.name == SEARCH_TOOLS || call.name == TOOL_SEARCH)
            && self.get(&call.name).is_none()
            && self.has_deferred()
    }

    /// The answer to a search, whose found tools `run` now has loaded. A Responses search's
    /// answer also carries their definitions, for its `tool_search_output`.
    pub(crate) fn answer_search(&self, call: &ToolCall, run: &mut RunState) -> ToolResult {
        let (query, limit) = match arguments(&call.name, &call.arguments) {
            Ok(parsed) => parsed,
            Err(refused) => return ToolResult::error(refused),
        };
        let found = self.found(&query, limit);
        let tools = self.tools();
        for &at in &found {
            run.load(tools[at].name());
        }
        let shown: Vec<_> = found.iter().map(|&at| &tools[at]).collect();
        let result = answer(&query, &shown);
        if call.name != TOOL_SEARCH {
            return result;
        }
        let strict = self
            .profiles
            .some(tools, Profile::OpenAiStrict, |at| found.contains(&at));
        result.with_metadata(DEFINITIONS_KEY, found_definitions(strict))
    }
}
