//! Compile-fail cases: every mistake in `tests/ui/*.rs` must fail with its committed `.stderr`,
//! and every supported form in `tests/ui/pass/*.rs` must compile under `#![deny(warnings)]`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
