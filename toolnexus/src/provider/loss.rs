//! What a profile's rewrite could not say, at one place of the arguments, before
//! [`check`](crate::check) attributes it to a tool; and the paths that name those places.

/// What a profile lost at one place.
#[derive(Debug, Clone)]
pub(crate) struct Loss {
    pub path: String,
    pub lost: String,
    pub why: String,
}

impl Loss {
    pub(crate) fn new(path: &str, lost: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            path: path.to_owned(),
            lost: lost.into(),
            why: why.into(),
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
