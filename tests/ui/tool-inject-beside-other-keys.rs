use toolnexus::{ToolContext, tool};
use toolnexus::context::FromToolContext;

struct Tenant(String);

impl FromToolContext for Tenant {
    fn from_tool_context(_: &ToolContext) -> Result<Self, String> {
        Ok(Tenant("acme".into()))
    }
}

/// Names the tenant.
#[tool]
fn tenant(
    #[param(inject, default, rename = "t", description = "the tenant")] tenant: Tenant,
    #[serde(default)]
    #[param(inject)]
    other: Tenant,
) -> String {
    tenant.0 + &other.0
}

fn main() {}
