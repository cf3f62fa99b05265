//! Compile-fail cases: every mistake in `tests/ui/*.rs` must fail with its committed `.stderr`,
//! and every supported form in `tests/ui/pass/*.rs` must compile under `#![deny(warnings)]`
//! (`TRYBUILD=overwrite cargo test -p toolnexus-tests --test expansion ui` writes them again).
//!
//! Why the run is slow: no case is. With trybuild's project built, every case takes about a
//! second (`cargo test -p toolnexus-tests --all-features --test expansion ui` prints them as
//! they finish). The minutes go to the first build of that project, which depends on every
//! dev-dependency of this package
//! (jsonschema, proptest, tokio, tempfile, …), whatever the cases use, and to the cases that
//! must `pass`, which are built and run, not only checked.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
    cases.pass("ui/pass/*.rs");
}
