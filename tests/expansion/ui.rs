//! Compile-fail cases: every mistake in `tests/ui/*.rs` must fail with its committed `.stderr`
//! (`TRYBUILD=overwrite cargo test -p toolnexus-tests --test expansion ui` writes them again).
//! The forms that must compile are tests of the `macros` binary (`tests/macros/accepted/`), so
//! that trybuild's project, which depends on every dependency of this package, is only
//! checked, never built, and all the cases are checked in one cargo run.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}
