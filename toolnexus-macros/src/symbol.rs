//! The attribute and key names the macros read, each written once (as serde_derive's
//! `symbol.rs`): a misspelt name is an unknown constant, not a key silently never matched.

use std::fmt;

use syn::Path;

/// An attribute or key name.
#[derive(Clone, Copy)]
pub struct Symbol(&'static str);

// Attributes.
pub const DOC: Symbol = Symbol("doc");
pub const PARAM: Symbol = Symbol("param");
pub const SERDE: Symbol = Symbol("serde");
pub const SCHEMARS: Symbol = Symbol("schemars");
pub const TOOLNEXUS: Symbol = Symbol("toolnexus");
pub const PART: Symbol = Symbol("part");
pub const METADATA: Symbol = Symbol("metadata");
pub const OUTPUT: Symbol = Symbol("output");

// Keys of `#[tool]`, `#[toolbox]` and `#[param]`.
pub const NAME: Symbol = Symbol("name");
pub const DESCRIPTION: Symbol = Symbol("description");
pub const TITLE: Symbol = Symbol("title");
pub const READ_ONLY: Symbol = Symbol("read_only");
pub const DESTRUCTIVE: Symbol = Symbol("destructive");
pub const IDEMPOTENT: Symbol = Symbol("idempotent");
pub const OPEN_WORLD: Symbol = Symbol("open_world");
pub const APPROVAL: Symbol = Symbol("approval");
pub const DEFER: Symbol = Symbol("defer");
pub const RETRIES: Symbol = Symbol("retries");
pub const TASK: Symbol = Symbol("task");
pub const CRATE: Symbol = Symbol("crate");
pub const RENAME: Symbol = Symbol("rename");
pub const DEFAULT: Symbol = Symbol("default");
pub const INJECT: Symbol = Symbol("inject");
pub const HEADER: Symbol = Symbol("header");

// Keys of the forwarded `#[serde]` and `#[schemars]` attributes that decoding reads.
pub const FLATTEN: Symbol = Symbol("flatten");
pub const WITH: Symbol = Symbol("with");
pub const DESERIALIZE_WITH: Symbol = Symbol("deserialize_with");
pub const SCHEMA_WITH: Symbol = Symbol("schema_with");

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.0)
    }
}
