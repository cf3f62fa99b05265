//! What a profile's rewrite could not say, at one place of the arguments, before
//! [`Toolkit::check`](crate::Toolkit::check) attributes it to a tool; and the paths that name those places.

/// What a profile lost at one place.
#[derive(Debug, Clone)]
pub(crate) struct Loss {
    pub path: String,
    pub lost: String,
    pub why: String,
    /// Said in the description instead, and enforced by the tool: the model is still told,
    /// and refused with a message when it does not comply.
    pub described: bool,
}

impl Loss {
    /// What the model cannot be told.
    pub(crate) fn new(path: &str, lost: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            path: path.to_owned(),
            lost: lost.into(),
            why: why.into(),
            described: false,
        }
    }

    /// A limit written into the description, which the tool enforces.
    pub(crate) fn described(path: &str, lost: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            described: true,
            ..Self::new(path, lost, why)
        }
    }
}

/// The path of property `name` under `path`.
pub(crate) fn property_path(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// The path of every element of the list at `path`.
pub(crate) fn items_path(path: &str) -> String {
    format!("{path}[]")
}
