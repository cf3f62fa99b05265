use toolnexus::{Toolkit, tool, tools};

// The failed `#[tool]` still has `AddTool` with `NAME` and `impl Tool`: one error, not three.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _toolkit = Toolkit::new().with_all(tools![add]).with(AddTool);
    let _name = AddTool::NAME;
}
