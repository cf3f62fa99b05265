//! What a toolkit knows about its catalog as a whole (SPEC §15, §15B): the retry budget of
//! tools that set none.

/// The toolkit's catalog settings; cheap to clone with the toolkit.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    /// [`Toolkit::retries`](crate::Toolkit::retries); `None` is the default budget.
    pub(crate) retries: Option<u32>,
}
