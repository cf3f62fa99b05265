//! `#[derive(ToolOutput)]` compile-fail cases (`tests/ui/output-*.rs`, each with its committed
//! `.stderr`), and a pass case proving the expansion is warning-free under `deny(warnings)`.

#[test]
fn ui_output() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/output-*.rs");
    cases.pass("tests/ui/pass/output-*.rs");
}
