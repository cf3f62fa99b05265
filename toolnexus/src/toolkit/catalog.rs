//! What a toolkit knows about its catalog as a whole (SPEC §15, §15B): which tools wait to be
//! found, how the model finds them, its search index, and the retry budget of tools that set
//! none.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::Toolkit;
use super::run_state::RunState;
use super::search::SearchIndex;
use crate::provider::search as wire;
use crate::provider::search_names::ToolSearch;
use crate::provider::turn::Api;
use crate::tool::Tool;

/// The toolkit's catalog settings; cheap to clone with the toolkit.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    /// [`Toolkit::retries`]; `None` is the default budget.
    pub(crate) retries: Option<u32>,
    /// [`Toolkit::defer_all_but`]: every other tool is deferred.
    keep: Option<Arc<BTreeSet<String>>>,
    pub(crate) search: ToolSearch,
    /// The deferred tools' index, built on first use; emptied when a tool is registered.
    index: OnceLock<Arc<SearchIndex>>,
}

impl Catalog {
    /// A tool was registered: the index no longer covers every deferred tool.
    pub(crate) fn tools_changed(&mut self) {
        self.index = OnceLock::new();
    }
}

impl Toolkit {
    /// Defers every tool but those named (SPEC §15): the model sees the kept ones from the
    /// start and finds the others by searching. A kept name wins over the tool's own
    /// `#[tool(defer)]`; names the toolkit does not have are ignored (a tool may arrive later).
    ///
    /// ```
    /// use toolnexus::{Toolkit, tool, tools};
    ///
    /// /// Reads a file.
    /// #[tool]
    /// fn read_file(path: String) -> String { path }
    ///
    /// /// Moves a file.
    /// #[tool]
    /// fn move_file(from: String, to: String) -> String { format!("{from} -> {to}") }
    ///
    /// let toolkit = Toolkit::new().with_all(tools![read_file, move_file]).defer_all_but(["read_file"]);
    /// assert!(!toolkit.is_deferred("read_file"));
    /// assert!(toolkit.is_deferred("move_file"));
    /// ```
    #[must_use]
    pub fn defer_all_but<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.catalog.keep = Some(Arc::new(names.into_iter().map(Into::into).collect()));
        self.catalog.tools_changed();
        self
    }

    /// Chooses how the model finds deferred tools on Anthropic and OpenAI Responses (see
    /// [`ToolSearch`]; default [`ToolSearch::Bm25`]).
    #[must_use]
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.catalog.search = search;
        self
    }

    /// Whether the tool called `name` is deferred: marked so itself ([`Tool::deferred`]) or
    /// by [`defer_all_but`](Self::defer_all_but). `false` for a name the toolkit lacks.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|tool| self.defers(tool.as_ref()))
    }

    pub(crate) fn defers(&self, tool: &dyn Tool) -> bool {
        match &self.catalog.keep {
            Some(keep) => !keep.contains(tool.name()),
            None => tool.deferred(),
        }
    }

    /// The local search (SPEC §15): the deferred tools that best match `query`, best first,
    /// at most `limit`. BM25 over each tool's name, title, description, and parameters'
    /// names and descriptions, identifiers split into words (`list_pull_requests` matches
    /// "pull request"); the index is built on the first search and kept until a tool is
    /// registered. What the `search_tools` tool answers.
    ///
    /// ```
    /// use toolnexus::{Toolkit, tool, tools};
    ///
    /// /// Lists the open pull requests of a repository.
    /// #[tool(defer)]
    /// fn list_pull_requests(repo: String) -> String { repo }
    ///
    /// /// Creates an issue.
    /// #[tool(defer)]
    /// fn create_issue(title: String) -> String { title }
    ///
    /// let toolkit = Toolkit::new().with_all(tools![list_pull_requests, create_issue]);
    /// let found = toolkit.search("which pull requests are open", 5);
    /// assert_eq!(found.iter().map(|tool| tool.name()).collect::<Vec<_>>(), ["list_pull_requests"]);
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<&Arc<dyn Tool>> {
        let found = self.found(query, limit);
        found.into_iter().map(|at| &self.tools()[at]).collect()
    }

    /// [`search`](Self::search), as the found tools' positions.
    pub(crate) fn found(&self, query: &str, limit: usize) -> Vec<usize> {
        self.index().search(query, limit)
    }

    /// The deferred tools' index, built once.
    fn index(&self) -> &SearchIndex {
        self.catalog.index.get_or_init(|| {
            let tools = self.tools();
            let deferred = (0..tools.len()).filter(|&at| self.defers(tools[at].as_ref()));
            Arc::new(SearchIndex::build(tools, deferred))
        })
    }

    /// Whether any tool is deferred, so there is something to search.
    pub(crate) fn has_deferred(&self) -> bool {
        !self.index().is_empty()
    }

    /// The `tools` to send `api` in this run (SPEC §15): what is not deferred, what a search
    /// in `run` loaded, and the search tool — in the API's own shape.
    ///
    /// - Chat Completions and Gemini: those tools ([`to_openai`](Self::to_openai),
    ///   [`to_gemini`](Self::to_gemini) entries) and the local `search_tools` tool.
    /// - Anthropic: every tool ([`to_anthropic`](Self::to_anthropic) entries), the deferred
    ///   ones with `"defer_loading": true`, and the search tool [`tool_search`](Self::tool_search)
    ///   chose (`tool_search_tool_bm25_20251119` by default). The API keeps deferred tools
    ///   out of the model's context until a search returns them.
    /// - OpenAI Responses ([`to_openai_responses`](Self::to_openai_responses) entries): an MCP
    ///   server's tools grouped in a `namespace` named after it; with the hosted search every
    ///   tool, the deferred ones with `"defer_loading": true`, and `{"type": "tool_search"}`;
    ///   with [`ToolSearch::Local`], what is not deferred or was loaded, and a
    ///   client-executed `tool_search`.
    ///
    /// Without deferred tools this is exactly what `to_openai()`, `to_openai_responses()`,
    /// `to_anthropic()` or `to_gemini()` send.
    ///
    /// ```
    /// use toolnexus::{Api, RunState, Toolkit, tool, tools};
    ///
    /// /// Reads a file.
    /// #[tool]
    /// fn read_file(path: String) -> String { path }
    ///
    /// /// Moves a file.
    /// #[tool(defer)]
    /// fn move_file(from: String, to: String) -> String { format!("{from} -> {to}") }
    ///
    /// let toolkit = Toolkit::new().with_all(tools![read_file, move_file]);
    /// let mut run = RunState::default();
    /// let names = |run: &RunState| -> Vec<String> {
    ///     let sent = toolkit.definitions(Api::OpenAiChat, run);
    ///     sent.as_array().unwrap().iter().map(|entry| entry["function"]["name"].as_str().unwrap().to_owned()).collect()
    /// };
    /// assert_eq!(names(&run), ["read_file", "search_tools"]);
    /// run.load("move_file");
    /// assert_eq!(names(&run), ["read_file", "move_file", "search_tools"]);
    /// ```
    pub fn definitions(&self, api: Api, run: &RunState) -> Value {
        if !self.has_deferred() {
            return match api {
                Api::OpenAiChat => self.to_openai(),
                Api::OpenAiResponses => self.to_openai_responses(),
                Api::Anthropic => self.to_anthropic(),
                Api::Gemini => self.to_gemini(),
            };
        }
        let tools = self.tools();
        let deferred = |at: usize| self.defers(tools[at].as_ref());
        let sent = |at: usize| !deferred(at) || run.is_loaded(tools[at].name());
        let search = self.catalog.search;
        match api {
            Api::OpenAiChat => wire::chat(tools, sent),
            Api::Gemini => wire::gemini(self.profiles.some(tools, crate::Profile::Gemini, sent)),
            Api::Anthropic => wire::anthropic(tools, deferred, search),
            Api::OpenAiResponses => {
                let strict = match search {
                    ToolSearch::Local => {
                        self.profiles
                            .some(tools, crate::Profile::OpenAiStrict, sent)
                    }
                    ToolSearch::Bm25 | ToolSearch::Regex => {
                        self.profiles
                            .some(tools, crate::Profile::OpenAiStrict, |_| true)
                    }
                };
                let shown = (0..tools.len()).filter(|&at| match search {
                    ToolSearch::Local => sent(at),
                    ToolSearch::Bm25 | ToolSearch::Regex => true,
                });
                let placed = shown.map(|at| {
                    (
                        tools[at].as_ref(),
                        deferred(at) && search != ToolSearch::Local,
                    )
                });
                wire::responses(strict, placed, search)
            }
        }
    }
}
